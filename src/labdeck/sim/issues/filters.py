"""The issue list filters of spec document 001 (shared by ``/issues``, group and project lists)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from labdeck.sim.core.http import ApiError, Params
from labdeck.sim.core.state import SimState, User
from labdeck.sim.issues.model import Issue, can_see_issue

SCOPES = ("created-by-me", "assigned-to-me", "created_by_me", "assigned_to_me", "all")
_NO_LABEL = {"no label", "no+label", "none"}
_NO_MILESTONE = {"no milestone", "no+milestone", "none"}


def parse_datetime(params: Params, name: str) -> datetime | None:
    """An ISO 8601 datetime (or date) parameter, as an aware UTC datetime."""
    text = params.str(name)
    if text is None or text == "":
        return None
    text = text.strip()
    moment: datetime | None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        # A "+01:00" offset sent unencoded in a query string arrives as " 01:00".
        try:
            moment = datetime.fromisoformat(text[:-6] + "+" + text[-5:]) if text[-6:-5] == " " else None
        except ValueError:
            moment = None
        if moment is None:
            raise ApiError(400, {"error": f"{name} is invalid"}) from None
    assert moment is not None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


def _int_list(params: Params, name: str) -> list[int]:
    values: list[int] = []
    for raw in params.list(name):
        try:
            values.append(int(raw))
        except (TypeError, ValueError):
            raise ApiError(400, {"error": f"{name} is invalid"}) from None
    return values


def _labels_filter(params: Params) -> tuple[str, list[str]]:
    """("none" | "any" | "all", names)."""
    raw = params.raw("labels")
    if raw is None:
        return "all", []
    names = [str(name).strip() for name in params.list("labels") if str(name).strip()]
    if len(names) == 1 and names[0].lower() in _NO_LABEL:
        return "none", []
    if len(names) == 1 and names[0].lower() == "any":
        return "any", []
    return "all", names


def _matches_id_filter(value: str | None, ids: Iterable[int]) -> bool:
    """``assignee_id`` style: an integer, ``None``/``0`` (nobody) or ``Any`` (somebody)."""
    if value is None or value == "":
        return True
    present = list(ids)
    lowered = value.lower()
    if lowered in ("none", "0"):
        return not present
    if lowered == "any":
        return bool(present)
    try:
        return int(value) in present
    except ValueError:
        raise ApiError(400, {"error": "assignee_id is invalid"}) from None


def filter_issues(
    state: SimState,
    user: User | None,
    params: Params,
    candidates: Iterable[Issue],
    *,
    default_scope: str,
) -> list[Issue]:
    """Visible issues matching every filter, ordered by ``order_by``/``sort``."""
    wanted_state = params.choice("state", ("opened", "closed", "all"), default="all")
    scope = params.choice("scope", SCOPES, default=default_scope)
    order_by = params.choice("order_by", ("created_at", "updated_at"), default="created_at")
    sort = params.choice("sort", ("asc", "desc"), default="desc")
    label_mode, label_names = _labels_filter(params)
    milestone = params.str("milestone")
    author_id = params.int("author_id")
    assignee_id = params.str("assignee_id")
    reaction = params.str("my_reaction_emoji")
    iids = set(_int_list(params, "iids"))
    search = (params.str("search") or "").lower()
    bounds = {name: parse_datetime(params, name) for name in
              ("created_after", "created_before", "updated_after", "updated_before")}

    if scope in ("created-by-me", "created_by_me") and user is not None:
        author_id = user.id
    assigned_to_me = scope in ("assigned-to-me", "assigned_to_me")

    result: list[Issue] = []
    for issue in candidates:
        if not can_see_issue(state, user, issue):
            continue
        if wanted_state != "all" and issue.state != wanted_state:
            continue
        if assigned_to_me and (user is None or user.id not in issue.assignee_ids):
            continue
        if author_id is not None and issue.author_id != author_id:
            continue
        if not _matches_id_filter(assignee_id, issue.assignee_ids):
            continue
        if label_mode == "none" and issue.labels:
            continue
        if label_mode == "any" and not issue.labels:
            continue
        if label_mode == "all" and not set(label_names) <= set(issue.labels):
            continue
        if milestone is not None and not _milestone_matches(state, issue, milestone):
            continue
        if reaction is not None and not _reaction_matches(issue, user, reaction):
            continue
        if iids and issue.iid not in iids:
            continue
        if search and search not in issue.title.lower() and search not in (issue.description or "").lower():
            continue
        if not _within(issue, bounds):
            continue
        result.append(issue)

    def key(issue: Issue) -> tuple[datetime, int]:
        return (issue.created_at if order_by == "created_at" else issue.updated_at, issue.id)

    result.sort(key=key, reverse=sort == "desc")
    return result


def _milestone_matches(state: SimState, issue: Issue, title: str) -> bool:
    lowered = title.lower()
    if lowered in _NO_MILESTONE:
        return issue.milestone_id is None
    if lowered == "any":
        return issue.milestone_id is not None
    if issue.milestone_id is None:
        return False
    milestone: Any = state.milestones.get(issue.milestone_id)
    return milestone is not None and milestone.title == title


def _reaction_matches(issue: Issue, user: User | None, emoji: str) -> bool:
    mine = issue.award_emoji.get(user.id, set()) if user is not None else set()
    lowered = emoji.lower()
    if lowered == "none":
        return not mine
    if lowered == "any":
        return bool(mine)
    return emoji in mine


def _within(issue: Issue, bounds: dict[str, datetime | None]) -> bool:
    """Inclusive created/updated bounds."""
    checks = (
        (bounds["created_after"], issue.created_at, True),
        (bounds["created_before"], issue.created_at, False),
        (bounds["updated_after"], issue.updated_at, True),
        (bounds["updated_before"], issue.updated_at, False),
    )
    for bound, value, after in checks:
        if bound is None:
            continue
        if after and value < bound:
            return False
        if not after and value > bound:
            return False
    return True

