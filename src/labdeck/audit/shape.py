"""What a request is about, from its method, path and parameters (no values kept).

:func:`infer_from_path` names the action (``jobs.cancel``) and the target (project, job…) when the
caller gave no :func:`~labdeck.audit.context.audit_context`; :func:`field_names` lists the
fields a request carries; :func:`request_values` collects the values only so that they can be
masked out of a server message before it is recorded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from labdeck.audit.context import AuditTarget
from labdeck.base import logsafe

_ID_AFTER = {"jobs": "job", "pipelines": "pipeline", "issues": "issue", "runners": "runner", "hooks": "hook"}
_NAME_AFTER = frozenset({"services", "protected_branches"})
_COLLECTIONS = frozenset({"projects", "hooks", "issues", "runners", "badges", "protected_branches", "uploads"})
_VERB = {"POST": "create", "PUT": "update", "PATCH": "update", "DELETE": "delete"}


def infer_from_path(method: str, raw_path: str) -> tuple[str, AuditTarget]:
    """An action id and a target from a request path: ``POST /api/v4/projects/g%2Fp/jobs/12/cancel``
    gives ``jobs.cancel`` and project ``g/p``, job 12; ``PUT …/runners/5`` gives ``runners.update``."""
    segments = [seg for seg in raw_path.split("?", 1)[0].split("/") if seg]
    for position in range(len(segments) - 1):
        if segments[position:position + 2] == ["api", "v4"]:
            segments = segments[position + 2:]
            break
    found: dict[str, Any] = {}
    root: str | None = None
    if len(segments) >= 2 and segments[0] in ("projects", "groups") and segments[1] not in ("import", "user"):
        root, value = segments[0], unquote(segments[1])
        found["project" if root == "projects" else "group"] = int(value) if value.isdigit() else value
        segments = segments[2:]
    words: list[str] = []
    ends_with_item = root is not None and not segments
    position = 0
    while position < len(segments):
        word, following = unquote(segments[position]), (segments[position + 1] if position + 1 < len(segments) else None)
        words.append(word)
        ends_with_item = following is not None and position + 2 == len(segments)
        if following is not None and following.isdigit():
            key = _ID_AFTER.get(word)
            if key is not None:
                found[key] = int(following)
            else:
                found.setdefault("name", f"{word.rstrip('s')} {following}")
            position += 2
        elif following is not None and word in _NAME_AFTER:
            found["name"] = unquote(following)
            position += 2
        else:
            position += 1
    if not words:
        words = [root or "api", _VERB.get(method, method.lower())]
    elif ends_with_item or method != "POST":
        words.append(_VERB.get(method, method.lower()))
    elif words[-1] in _COLLECTIONS:
        words.append("create")
    elif root is not None and len(words) == 1:
        words.insert(0, root)
    return ".".join(_safe_word(word) for word in words), AuditTarget(**found)


def _safe_word(word: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", word)[:60]


def field_names(*, params: Any = None, data: Any = None, json_body: Any = None, files: Any = None) -> list[str]:
    """The names of the fields a request carries (never their values)."""
    names: list[str] = []
    for source in (data, json_body, params):
        if isinstance(source, Mapping):
            names.extend(str(key) for key in source)
        elif isinstance(source, list | tuple):
            names.extend(str(item[0]) for item in source if isinstance(item, tuple) and item)
        elif source is not None and source != {}:
            names.append("(body)")
    if files is not None:
        names.append("(files)")
    cleaned = [logsafe.printable(name)[:100] for name in names]
    return list(dict.fromkeys(cleaned))


def request_values(*sources: Any) -> set[str]:
    """Every string value a request carries, to mask out of server messages."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple | set | frozenset):
            for item in value:
                walk(item)
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            text = str(value)
            if len(text) >= 4 and text not in ("true", "false", "null"):
                found.add(text)

    for source in sources:
        walk(source)
    return found
