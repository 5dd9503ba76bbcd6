"""The last line of defence between server text and the terminal.

Every strip a widget renders passes through the app's line filters (``App.get_line_filters``)
just before the compositor writes it. :class:`InertTextFilter` deletes, from the *text* of every
segment, the characters a terminal would act on: C0 controls (tab and newline aside), DEL, the
C1 range (``U+009B`` is an 8-bit CSI, ``U+009D`` an OSC…) and the bidirectional overrides and
isolates that reorder what the user reads. Whatever a screen forgot to clean (a job name, a
runner description, a toast), no ESC or C1 byte from the server reaches the terminal.

Colours are not text: after ``Text.from_ansi`` a trace's SGR sequences are Rich styles, which this
filter keeps, and segments flagged as *control* (cursor moves Textual itself emits) are left as
they are. The removed characters are zero cells wide, so a strip keeps its width.
"""

from __future__ import annotations

import re

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

UNSAFE_CHARACTERS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
"""Characters never written to the terminal as text."""


def inert(text: str) -> str:
    """``text`` without the characters of :data:`UNSAFE_CHARACTERS`."""
    if UNSAFE_CHARACTERS.search(text) is None:
        return text
    return UNSAFE_CHARACTERS.sub("", text)


class InertTextFilter(LineFilter):
    """Deletes terminal controls and bidi overrides from every (non-control) segment's text."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        """Return ``segments`` with unsafe characters removed from their text."""
        search = UNSAFE_CHARACTERS.search
        if not any(not control and search(text) for text, _, control in segments):
            return segments
        return [
            segment if segment.control else Segment(inert(segment.text), segment.style, None)
            for segment in segments
        ]
