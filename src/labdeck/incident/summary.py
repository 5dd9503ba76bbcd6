"""The incident summary as Markdown: for ``summary.md`` in the bundle and for the clipboard.

Every server string (names, refs, error lines) goes through :func:`labdeck.base.logsafe.printable`
(no control characters, no bidi overrides, secrets masked) and, inside code spans, is fenced with
enough backticks that it cannot break out of them.

Clipboard size: the console copies through OSC 52, whose whole escape sequence is commonly capped
at 100,000 bytes (hterm's ``osc52.sh``: ``OSC_52_MAX_SEQUENCE="100000"``; tmux-yank-osc52 by
sunaku, quoted in tinmarino/vimfiles ``bin/_copy_to_terminal.sh``: "7 bytes are occupied by a
``\\033]52;c;`` header, 1 byte by a ``\\a`` footer, and 99_992 bytes by the base64-encoded result
of 74_994 bytes of copyable text"). :data:`CLIPBOARD_LIMIT` is therefore 74,994 bytes of UTF-8
text; :func:`clipboard_summary` cuts at a line boundary below it and says so in the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from labdeck.base import logsafe
from labdeck.incident.collect import Incident, JobEvidence, latest_items

CLIPBOARD_LIMIT = 74_994
"""Bytes of text that fit one OSC 52 sequence of 100,000 bytes once base64-encoded."""
MAX_ERRORS = 5


def text(value: object, limit: int = 300) -> str:
    """A server value on one line, safe for a terminal and for Markdown prose."""
    flat = " ".join(logsafe.printable(str(value)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def code(value: object, limit: int = 300) -> str:
    """``value`` as an inline code span that its own backticks cannot close."""
    inner = text(value, limit)
    longest = max((len(run) for run in re.findall(r"`+", inner)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if inner.startswith("`") or inner.endswith("`") or not inner else ""
    return f"{fence}{pad}{inner}{pad}{fence}"


def when(moment: datetime | None) -> str:
    """``2024-05-01 12:00:03 UTC`` or ``-``."""
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else "-"


def _job_section(evidence: JobEvidence, files: Sequence[str]) -> list[str]:
    job = evidence.job
    lines = [f"## Job {job.id} {code(job.name or '?')} — {text(job.status)}", ""]
    pipeline = job.pipeline.id if job.pipeline else None
    where = [f"stage {code(job.stage or '?')}", f"ref {code(job.ref or '?')}"]
    if pipeline is not None:
        where.append(f"pipeline #{pipeline}")
    lines.append(f"- Where: {', '.join(where)}")
    lines.append(f"- When: created {when(job.created_at)}, started {when(job.started_at)}, "
                 f"finished {when(job.finished_at)}" + (f" ({job.duration:.0f} s)" if job.duration else ""))
    if job.runner is not None:
        lines.append(f"- Runner: #{job.runner.id} {code(job.runner.description or job.runner.name or '?')}")
    else:
        lines.append("- Runner: none (the job was not picked up)")
    reason = evidence.failure_reason
    trailer = evidence.errors.trailer[-1].text if evidence.errors.trailer else None
    if reason:
        lines.append(f"- Failure reason: {text(reason)}")
    elif trailer:
        lines.append(f"- Failure reason: not reported by the server; the runner's last word: {code(trailer)}")
    if job.commit is not None and (job.commit.short_id or job.commit.title):
        lines.append(f"- Commit: {code(job.commit.short_id or '?')} {text(job.commit.title or '')}")
    if job.web_url:
        lines.append(f"- Link: <{text(job.web_url, 500)}>")
    if evidence.pending is not None:
        lines += ["", "### Why it is pending", "", text(evidence.pending.headline, 1000)]
        lines += [f"- {text(detail, 500)}" for detail in evidence.pending.details]
    lines += ["", "### First errors", ""]
    if evidence.log_note:
        lines.append(f"No log: {text(evidence.log_note)}.")
    elif evidence.log_lines == 0:
        lines.append("The log is empty.")
    elif not evidence.errors:
        lines.append(f"No error line recognised in the log ({evidence.log_lines} lines).")
    else:
        kind = "runner trailer only" if not evidence.errors.primary else f"{len(evidence.errors)} found"
        lines.append(f"Line numbers as in `jobs/{job.id}.log.txt` ({evidence.log_lines} lines; {kind}):")
        lines.append("")
        for match in evidence.errors.head(MAX_ERRORS):
            detail = f" → line {match.detail_index + 1}: {code(match.detail)}" if match.detail and match.detail_index is not None else ""
            lines.append(f"- line {match.line_number} ({match.kind}): {code(match.text)}{detail}")
        if len(evidence.errors) > MAX_ERRORS:
            lines.append(f"- … {len(evidence.errors) - MAX_ERRORS} more")
    mine = [name for name in files if name.startswith(f"jobs/{job.id}.")]
    if mine:
        lines += ["", "Files: " + ", ".join(f"`{name}`" for name in mine)]
    return lines + [""]


def pipeline_line(pid: int, items: Sequence[dict[str, Any]]) -> str:
    """``- Pipeline #77: failed · 1,500 jobs · failed: unit-0001 +39 more · 2 running``: the status
    is the server's (embedded in its newest job), a retried job counts once (its newest try), and
    failures of ``allow_failure`` jobs are named apart."""
    latest = latest_items(items)
    newest = max((item for item in items if isinstance(item.get("id"), int)), key=lambda item: item["id"], default=None)
    embedded = newest.get("pipeline") if newest is not None else None
    status = embedded.get("status") if isinstance(embedded, dict) else None
    failed = [str(item.get("name") or f"#{item['id']}") for item in latest
              if item.get("status") == "failed" and not item.get("allow_failure")]
    allowed = [str(item.get("name") or f"#{item['id']}") for item in latest
               if item.get("status") == "failed" and item.get("allow_failure")]
    running = sum(1 for item in latest if item.get("status") in ("running", "canceling"))
    parts = [f"- Pipeline #{pid}: {text(status or 'status unknown')}", f"{len(latest):,} jobs"]
    retried = len([item for item in items if isinstance(item.get("id"), int)]) - len(latest)
    if retried:
        parts[-1] += f" (+{retried:,} older tries)"
    if failed:
        more = f" +{len(failed) - 1:,} more" if len(failed) > 1 else ""
        parts.append(f"failed: {code(failed[0])}{more}")
    if allowed:
        parts.append(f"allowed to fail: {len(allowed):,}")
    if running:
        parts.append(f"{running:,} running")
    return " · ".join(parts) + f" (`pipeline-{pid}.json`)"


def render_summary(incident: Incident, files: Sequence[str] = ()) -> str:
    """``summary.md``: what failed, when, where, runners, first errors, why pending, links, audit."""
    project = incident.project
    failed = [e for e in incident.jobs if e.job.status == "failed"]
    pending = [e for e in incident.jobs if e.job.status == "pending"]
    head = f"# Incident: {code(project.path_with_namespace or project.id)} — {text(incident.scope)}"
    source = text(incident.instance) if not incident.profile else f"{text(incident.profile)} ({text(incident.instance)})"
    lines = [head, "", f"Collected {when(incident.generated_at)} (server time) from {source} by labdeck.", ""]
    lines += ["## Overview", ""]
    lines.append(f"- Project: {code(project.path_with_namespace or project.id)}"
                 + (f" <{text(project.web_url, 500)}>" if project.web_url else ""))
    lines.append(f"- Jobs: {len(incident.jobs)} ({len(failed)} failed, {len(pending)} pending)")
    for evidence in incident.jobs:
        job = evidence.job
        first = evidence.errors.first
        first_text = f" — line {first.line_number}: {code(first.text, 160)}" if first else ""
        lines.append(f"  - #{job.id} {code(job.name or '?')} {text(job.status)} (stage {code(job.stage or '?')})"
                     + first_text)
    for pid in incident.pipelines:
        lines.append(pipeline_line(pid, incident.pipelines[pid]))
    lines.append("")
    ordered = sorted(incident.jobs, key=lambda e: (e.job.status not in ("failed", "pending"), e.id))
    for evidence in ordered:
        lines += _job_section(evidence, files)
    if incident.runners:
        lines += ["## Runners", ""]
        for rid, body in sorted(incident.runners.items()):
            tags = ", ".join(text(tag, 60) for tag in body.get("tag_list") or []) or "none"
            lines.append(f"- #{rid} {code(body.get('description') or '?')}: status {text(body.get('status') or '?')}, "
                         f"tags {tags}, contacted {text(body.get('contacted_at') or '?')} (`runners/{rid}.json`)")
        lines.append("")
    lines += ["## Audit log (changes sent from this machine to these targets)", ""]
    if incident.audit:
        for entry in incident.audit:
            who = text(entry.user or "an unknown user") + (f" ({text(entry.profile)})" if entry.profile else "")
            lines.append(f"- {when(entry.time)} {code(entry.action or entry.method)} {text(entry.target.describe())} "
                         f"by {who}: {text(entry.outcome_text())}; confirmation {text(entry.confirmation or 'not recorded')}")
    else:
        lines.append("None recorded.")
    lines.append("")
    if incident.notes:
        lines += ["## Not collected", ""] + [f"- {text(note, 500)}" for note in incident.notes] + [""]
    if files:
        lines += ["## Files", ""] + [f"- `{name}`" for name in files] + [""]
    return "\n".join(lines)


@dataclass(frozen=True)
class ClipboardText:
    """Text for the clipboard: ``cut`` True when it was shortened (the text then says so)."""

    text: str
    cut: bool
    full_bytes: int


def clipboard_summary(markdown: str, max_bytes: int = CLIPBOARD_LIMIT, *, full_at: str | None = None) -> ClipboardText:
    """``markdown`` cut at a line boundary to at most ``max_bytes`` UTF-8 bytes, ending with a line
    that says it was cut, how big the whole is and where it is (``full_at``, e.g. the bundle)."""
    size = len(markdown.encode("utf-8"))
    if size <= max_bytes:
        return ClipboardText(markdown, False, size)
    where = f" The full summary is in {full_at}." if full_at else ""
    note = f"\n\n[Cut here: the summary is {size} bytes, the clipboard takes {max_bytes}.{where}]\n"
    budget = max_bytes - len(note.encode("utf-8"))
    kept: list[str] = []
    used = 0
    for line in markdown.split("\n"):
        cost = len(line.encode("utf-8")) + 1
        if used + cost > budget:
            if not kept and budget > 0:  # one giant first line: cut inside it
                kept.append(line.encode("utf-8")[:budget].decode("utf-8", "ignore"))
            break
        kept.append(line)
        used += cost
    return ClipboardText("\n".join(kept).rstrip("\n") + note, True, size)
