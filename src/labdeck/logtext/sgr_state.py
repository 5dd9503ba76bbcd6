"""The colour/style in effect at the end of a line, so the next line can start with it.

A terminal keeps SGR state across newlines: ``ESC[31m`` on one line keeps the following lines red
until a reset. The trace viewer renders each line on its own (``Text.from_ansi(line)`` starts
unstyled), so :class:`LineIndex <labdeck.logtext.lines.LineIndex>` prefixes every display line with
the state left by the lines before it, computed here from canonical SGR parameters (the
sanitizer's output: ``\\d+(;\\d+)*``).
"""

from __future__ import annotations

import re

_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_ATTRIBUTE_ON = {1: "bold", 2: "dim", 3: "italic", 4: "underline", 21: "underline2", 7: "reverse", 9: "strike",
                 53: "overline"}
_ATTRIBUTE_OFF = {22: ("bold", "dim"), 23: ("italic",), 24: ("underline", "underline2"), 27: ("reverse",),
                  29: ("strike",), 55: ("overline",)}
_ATTRIBUTE_CODE = {"bold": 1, "dim": 2, "italic": 3, "underline": 4, "underline2": 21, "reverse": 7,
                   "strike": 9, "overline": 53}


class SgrState:
    """Attributes and colours set by the SGR sequences seen so far."""

    __slots__ = ("attributes", "background", "foreground")

    def __init__(self) -> None:
        self.attributes: set[str] = set()
        self.foreground: tuple[int, ...] = ()
        self.background: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.attributes or self.foreground or self.background)

    def reset(self) -> None:
        """Back to the terminal default."""
        self.attributes.clear()
        self.foreground = ()
        self.background = ()

    def feed(self, line: str) -> None:
        """Apply every SGR sequence of ``line`` in order."""
        last = line.rfind("\x1b[")
        if last == -1:
            return
        # Common case: the line ends its colours with a reset, so only that reset matters.
        final = _SGR.match(line, last)
        if final is not None and not final.group(1).replace("0", "").replace(";", ""):
            self.reset()
            return
        for match in _SGR.finditer(line):
            self.apply(match.group(1))

    def apply(self, params: str) -> None:
        """Apply one sequence's parameters (``"1;31"``; ``""`` means reset)."""
        codes = [int(code) if code else 0 for code in params.split(";")] if params else [0]
        index = 0
        while index < len(codes):
            code = codes[index]
            index += 1
            if code == 0:
                self.reset()
            elif code in _ATTRIBUTE_ON:
                self.attributes.add(_ATTRIBUTE_ON[code])
            elif code in _ATTRIBUTE_OFF:
                self.attributes.difference_update(_ATTRIBUTE_OFF[code])
            elif 30 <= code <= 37 or 90 <= code <= 97:
                self.foreground = (code,)
            elif 40 <= code <= 47 or 100 <= code <= 107:
                self.background = (code,)
            elif code == 39:
                self.foreground = ()
            elif code == 49:
                self.background = ()
            elif code in (38, 48):
                kind = codes[index] if index < len(codes) else None
                width = 2 if kind == 5 else 4 if kind == 2 else 0
                colour = tuple(codes[index - 1:index + width])
                index += width
                if width and len(colour) == width + 1:
                    if code == 38:
                        self.foreground = colour
                    else:
                        self.background = colour

    def prefix(self) -> str:
        """An SGR sequence recreating this state (``""`` for the default)."""
        if not self:
            return ""
        codes = [_ATTRIBUTE_CODE[name] for name in sorted(self.attributes)]
        codes.extend(self.foreground)
        codes.extend(self.background)
        return "\x1b[" + ";".join(str(code) for code in codes) + "m"
