"""The list response shared by GET /projects, GET /users/:user_id/projects and GET /projects/:id/forks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from labdeck.sim.core.context import Ctx
from labdeck.sim.core.http import paginate
from labdeck.sim.core.state import Project
from labdeck.sim.projects.filters import check_order_params, filter_projects
from labdeck.sim.projects.views import ProjectPresenter


def project_list(ctx: Ctx, projects: Iterable[Project]) -> tuple[list[Any], int, dict[str, str]]:
    """Filter, order and paginate ``projects``; anonymous and ``simple`` callers get the basic shape."""
    check_order_params(ctx.params)
    selected = filter_projects(ctx.state, ctx.user, ctx.params, projects)
    page, headers = paginate(ctx.request, ctx.params, selected,
                             link_defaults={"order_by": "created_at", "sort": "desc"})
    presenter = ProjectPresenter(ctx.state, ctx.user, ctx.base_url)
    if ctx.user is None or ctx.params.bool("simple"):
        return [presenter.basic(project) for project in page], 200, headers
    statistics = bool(ctx.params.bool("statistics"))
    custom = bool(ctx.params.bool("with_custom_attributes"))
    body = [presenter.full(project, statistics=statistics, custom_attributes=custom) for project in page]
    return body, 200, headers
