"""How one line of a job trace looks in the viewer: line number, fold marker, the colours of its
SGR sequences (the only escapes left in display text), the decorations of a section header,
search matches, the error mark, the mark of lines new since the last green run and the cursor. Server text goes in as text, never as markup."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from labdeck.base.durations import format_duration
from labdeck.logtext.line_text import safe_cut
from labdeck.logtext.sections import Section
from labdeck.ui.widgets.trace.document import TraceDocument

MAX_LINE_CHARS = 5_000
"""Longer lines are cut before rendering (the saved log keeps them whole)."""
_CONTROLS = re.compile("[\x00-\x08\x0a-\x1f\x7f]")
"""What ``Text.from_ansi`` acts on besides tabs (ESC first of all)."""
LONG_SECTION_SECONDS = 120
"""Sections at least this long stand out."""

Part = tuple[list[Segment], int]
"""One rendered row of a line: its segments and their width in cells."""


@dataclass(frozen=True)
class Row:
    """A row of the view: a line, or one part of a wrapped line."""

    line: int
    part: int


def wrapped_rows(count: int, top: int, height: int, line_at: Callable[[int], int],
                 parts_of: Callable[[int], int]) -> list[Row]:
    """The ``height`` rows from display row ``top`` (of ``count``) when lines wrap into
    ``parts_of(line)`` rows each; at the end the last line is anchored at the bottom."""
    rows: list[Row] = []
    if top >= max(0, count - height):
        row = count - 1
        while row >= 0 and len(rows) < height:
            line = line_at(row)
            rows[:0] = [Row(line, part) for part in range(parts_of(line))]
            row -= 1
        return rows[-height:] if len(rows) > height else rows
    row = top
    while row < count and len(rows) < height:
        line = line_at(row)
        rows.extend(Row(line, part) for part in range(parts_of(line)))
        row += 1
    return rows[:height]


@dataclass(frozen=True)
class LineLook:
    """What, besides the line itself, decides how it looks."""

    gutter_width: int
    wrap: bool
    raw: bool
    fold: str
    """``▸ ``/``▾ `` on a section header, blanks inside a section, nothing outside any."""
    section: Section | None
    """The section this line is the header of."""
    folded: bool
    search: re.Pattern[str] | None
    current_match: bool
    error: bool
    cursor: bool
    new: bool = False
    """New since the last green run: a ``+`` beside the line number (``trace-view--new``)."""


def body_text(display: str, max_chars: int = MAX_LINE_CHARS) -> Text:
    """A display line of a trace (sanitized: SGR is the only escape left) as Rich text: cut to
    ``max_chars``, its SGR sequences turned into styles (``Text.from_ansi``, never markup), tabs
    expanded. The one way both log viewers (one job's, ``F``'s merged view) show a log line."""
    cut = safe_cut(display, max_chars)
    # Most lines hold no escape nor control character: the same text without the decoder's work.
    body = Text.from_ansi(cut) if _CONTROLS.search(cut) else Text(cut)
    body.expand_tabs(8)
    return body


def line_text(document: TraceDocument, line: int, look: LineLook, style: Callable[[str], Style]) -> Text:
    """The text of ``line`` as shown (``style(name)`` gives the ``trace-view--name`` style)."""
    text = Text(no_wrap=not look.wrap, end="")
    if look.new:
        text.append(f"{line + 1:>{look.gutter_width}}", style=style("new"))
        text.append("+", style=style("new"))
    else:
        text.append(f"{line + 1:>{look.gutter_width}} ", style=style("gutter"))
    if look.fold:
        text.append(look.fold, style=style("fold") if look.section is not None else "")
    body_start = len(text)
    if look.raw:
        body = Text(document.raw_line(line)[:MAX_LINE_CHARS])
    else:
        body = body_text(document.line(line))
    text.append_text(body)
    if look.section is not None:
        _decorate_header(text, document, look.section, look.folded, style)
    if look.search is not None:
        match_style = style("current-match" if look.current_match else "match")
        for match in look.search.finditer(text.plain, body_start):
            text.stylize(match_style, match.start(), match.end())
    if look.error:
        text.stylize(style("error-line"), body_start)
    if look.cursor:
        text.stylize(style("cursor"), 0)
        text.stylize(Style(reverse=True), 0, look.gutter_width)
    return text


def _decorate_header(text: Text, document: TraceDocument, section: Section, folded: bool,
                     style: Callable[[str], Style]) -> None:
    failed = document.section_failed(section)
    long = (section.duration or 0) >= LONG_SECTION_SECONDS
    if not text.plain.strip():
        text.append(section.title)
    if not section.hide_duration:
        duration = format_duration(section.duration) if section.duration is not None \
            else "no end mark" if document.job_ended else "running…"
        text.append(f"  {duration}", style=style("duration"))
    hidden = (section.end_line - section.start_line) if section.end_line is not None else 0
    if folded and hidden:
        text.append(f"  [{hidden} line{'' if hidden == 1 else 's'}]", style=style("duration"))
    if failed:
        text.append("  ✗ failed", style=style("failed"))
        text.stylize(style("failed"), 0)
    elif long:
        text.append("  ⚠ long", style=style("long"))
