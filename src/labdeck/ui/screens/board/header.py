"""The board's header (one instance): what the reads said, in one line of the title row."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len

from labdeck.ui.connection import COUNTDOWN, REASON_ROOM, keep_countdown, short_trouble, trouble_text
from labdeck.watch import BoardSnapshot, PipelineRow

KEPT = "last rows kept (stale)"
"""Said after the reason while the server is in trouble and the rows read before stay."""


def server_trouble(watching: Any, client: Any) -> str | None:
    """Why the server's answers cannot be trusted now (the connection's trouble, else the last
    round's read error); None while it answers."""
    return trouble_text(getattr(client, "health", None)) or watching.freshness().error


def board_context(snapshot: BoardSnapshot, watching: Any, client: Any, rows: list[PipelineRow],
                  status_filter: str, room: int | None) -> str:
    """``502 Bad Gateway (nginx) — retrying in 8 s · last rows kept (stale) · 11 projects watched``,
    ``stale · 6 failed · 1 running · 11 projects watched`` … ``room``: the cells the title row
    leaves (None: unknown); a long reason gives way in it before the stale mark and the counts."""
    freshness = watching.freshness()
    trouble = server_trouble(watching, client)
    # A listing that failed (a storm over the starred projects' refresh) keeps the projects of
    # the one before: the board goes on with them and says what could not be listed, it does
    # not start "loading…" again; the next listing comes within a round of the storm's end.
    problems = snapshot.watched.problems if snapshot.watched is not None else ()
    watched = len(snapshot.watched.projects) if snapshot.watched is not None else 0
    listed = watching.watched.resolved and not (problems and watched == 0)
    parts: list[str] = []
    if problems and not trouble:
        parts.append(problems[0])
    if trouble:
        # The server refuses, fails or throttles: say so; what was read before stays, as stale.
        parts.append(trouble)
        if snapshot.rows:
            parts.append(KEPT)
    elif freshness.paused_for > 0:
        parts.append(f"rate limited — retrying in {int(freshness.paused_for + 0.999)} s")
    if not trouble and freshness.paused_for <= 0:
        if listed and watched == 0:
            pass  # nothing to read: "0 projects watched" says it all
        elif freshness.last_complete_at is None or not listed:
            parts.append("loading…")  # no round complete yet: nothing is known to be fine
        else:
            ages = watching.poller.row_ages()
            # Stale by the rows' own reads (as the status line's `oldest …`), not by the round.
            if any(ages.stale(row) for row in rows) if rows and ages.oldest(rows) is not None \
                    else freshness.is_stale:
                parts.append("stale")
            parts += [f"{snapshot.broken} failed" if snapshot.broken else "nothing failing",
                      f"{sum(1 for row in rows if row.status == 'running')} running"]
    watched_part = f"{watched} projects watched"
    if listed:
        parts.append(watched_part)
    if snapshot.loading and freshness.last_complete_at is None:
        parts.append(f"loading {snapshot.loading}")
    if status_filter:
        parts.append(f"f={status_filter}")
    unseen = watching.unseen
    if unseen:
        parts.append(f"{unseen} alert{'s' if unseen != 1 else ''} (!)")
    reason = trouble or (problems[0] if problems else None)
    if reason and parts and parts[0] == reason and room is not None:
        # The reason gives way (short form, then cut; the countdown kept while it fits): the
        # stale mark and the counts after it must stay in view (80 columns).
        parts[0] = _fit_reason(reason, parts[1:], room)
        # When the next try is says more in a storm than words about the rows kept or how many
        # projects are watched (both come back with the first good round): those give way first,
        # the stale mark itself stays (``rows (stale)``, ``(stale)``).
        for long, short in ((KEPT, "rows (stale)"), ("rows (stale)", "(stale)"), (watched_part, "")):
            if not COUNTDOWN.search(reason) or COUNTDOWN.search(parts[0]) or long not in parts:
                break
            parts[parts.index(long)] = short
            parts = [part for part in parts if part]
            parts[0] = _fit_reason(reason, parts[1:], room)
        parts = [part for part in parts if part]
    return " · ".join(parts)


def _fit_reason(reason: str, rest: list[str], room: int) -> str:
    """The reason in the room the parts after it leave: whole, its short form, or cut; the
    countdown kept while a few cells of the reason fit beside it ('' when nothing fits)."""
    left = room - cell_len(" · ".join(rest)) - 3
    if cell_len(reason) <= left:
        return reason
    fitted = short_trouble(reason, left) if left >= REASON_ROOM else ""
    if COUNTDOWN.search(fitted) or not COUNTDOWN.search(reason):
        return fitted
    return keep_countdown(reason, left) or fitted
