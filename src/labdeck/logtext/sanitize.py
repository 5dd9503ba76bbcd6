"""Make hostile job-trace text safe to render: keep SGR colour/style sequences, strip the rest.

Job traces are written by whatever runs in a CI job, so they are attacker-controlled. Only
``ESC [ params m`` (SGR) may reach Rich; every other control sequence is removed *as a whole*
(its payload never leaks as text):

- all other CSI (cursor moves, erase ``ESC[0K``, ``ESC[2J``, private modes ``ESC[?1049h``,
  queries ``ESC[6n`` / ``ESC[21t``), and any CSI in its 8-bit form ``U+009B`` even when SGR;
- OSC (titles, OSC 8 links, OSC 52 clipboard…), DCS, SOS, PM and APC strings, in 7-bit
  (``ESC ]``, ``ESC P``, ``ESC X``, ``ESC ^``, ``ESC _``) and 8-bit (``U+009D``, ``U+0090``,
  ``U+0098``, ``U+009E``, ``U+009F``) forms. A string ends at BEL, at ST (``ESC \\`` or
  ``U+009C``), at any other ESC (which starts a new sequence, as in a VT parser), at CAN/SUB, at a
  newline (kept: a hostile unterminated string hides at most the rest of one line) or after
  :data:`MAX_STRING` characters (the sequence is dropped and what follows is shown as text);
- single-character escapes (``ESC c``, ``ESC 7``, ``ESC =``, ``ESC ( 0`` …) and a lone ESC;
- the other C1 controls U+0080–U+009F, C0 controls except ``\\n``, ``\\t`` and ``\\r``, and DEL;
- bidirectional overrides/isolates/marks (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C),
  invisible format characters (zero-width space/joiners U+200B–U+200D, word joiner and invisible
  operators U+2060–U+2064, the BOM/ZWNBSP U+FEFF wherever it is), the line and paragraph
  separators U+2028/U+2029 (some renderers break lines on them) and the tag characters
  U+E0000–U+E007F (invisible text); lone surrogates become U+FFFD.

``\\r`` is kept on purpose: :mod:`labdeck.logtext.lines` interprets it as a progress-line overwrite
and section-marker terminator, and never emits it in display lines.

SGR parameters are validated and rewritten in a canonical ``;``-separated form (colon sub-params
such as ``38:2::r:g:b`` become ``38;2;r;g;b``). Blink (5, 6), conceal (8, which can hide text),
underline colour (58/59) and unknown codes are dropped; a sequence with more than
:data:`MAX_SGR_PARAMS` parameters or a number above 255 is dropped whole. The output is therefore
a fixed point: ``sanitize(sanitize(x)) == sanitize(x)``.

Guarantee (tested with Hypothesis): the output contains no C1 control, no C0 control other than
``\\n``, ``\\t`` and ``\\r``, and every ESC in it starts a canonical SGR ``ESC [ [0-9;]* m``; the
result does not depend on how the input was split into :meth:`TraceSanitizer.feed` calls. Every
newline of the input is kept and the sanitizer is back in its ground state after each one, so
sanitizing line by line gives the same text as sanitizing the stream.
"""

from __future__ import annotations

import re
from functools import lru_cache

MAX_STRING = 4096
"""Longest OSC/DCS/SOS/PM/APC payload followed before the sequence is abandoned."""
MAX_CSI = 256
"""Longest CSI parameter/intermediate run buffered; longer sequences are consumed and dropped."""
MAX_SGR_PARAMS = 32
"""More parameters than this in one SGR sequence and the sequence is dropped."""
_MAX_INTERMEDIATES = 16

ESC = "\x1b"
BEL = "\x07"
CAN = "\x18"
SUB = "\x1a"
ST_8BIT = "\x9c"

# Characters that need the state machine when met in ground state. \t \n \r are kept as text.
_SPECIAL_CHARACTERS = (
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff\U000e0000-\U000e007f"
)
_GROUND_SPECIAL = re.compile(f"[{_SPECIAL_CHARACTERS}]")
# A whole CSI sequence inside one chunk (parameters/intermediates 0x20-0x3F, then a final byte).
_WHOLE_CSI = re.compile("\x1b\\[([ -?]{0," + str(MAX_CSI) + "})([@-~])")
# Characters that end (or abort) a control string.
_STRING_STOP = re.compile("[\x07\x1b\x9c\x18\x1a\n]")

_GROUND, _ESC, _ESC_INTER, _CSI, _CSI_IGNORE, _STRING = range(6)

_STRING_INTRODUCERS_7BIT = frozenset("]PX^_")
_STRING_INTRODUCERS_8BIT = frozenset("\x90\x98\x9d\x9e\x9f")
_SGR_BODY = re.compile(r"[0-9;:]*")
_SIMPLE_SGR = frozenset(
    [0, 1, 2, 3, 4, 7, 9, 21, 22, 23, 24, 25, 27, 28, 29, 39, 49, 51, 52, 53, 54, 55]
    + list(range(30, 38)) + list(range(40, 48)) + list(range(90, 98)) + list(range(100, 108))
)
_EXTENDED_COLOUR = (38, 48)
_UNDERLINE_COLOUR = (58, 59)


def _one_of(codes: frozenset[int]) -> str:
    """A regular expression matching exactly the decimal forms of ``codes`` (character classes
    per leading digits, longest first: far faster to match than one alternative per code)."""
    endings: dict[str, list[str]] = {}
    for code in sorted(codes):
        text = str(code)
        endings.setdefault(text[:-1], []).append(text[-1])
    alternatives = [prefix + (digits[0] if len(digits) == 1 else f"[{''.join(digits)}]")
                    for prefix, digits in sorted(endings.items(), key=lambda item: -len(item[0]))]
    return "(?:" + "|".join(alternatives) + ")"


def _canonical_sgr_pattern() -> str:
    """An SGR sequence that :func:`normalise_sgr` would return unchanged: simple codes and 256/RGB
    colours, written without leading zeros or empty parameters, six at most (30 numbers, under
    :data:`MAX_SGR_PARAMS`). Anything else (``ESC[0;m``, blink, conceal…) takes the slow path."""
    byte = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
    parameter = f"(?:(?:38|48)(?:;5;{byte}|;2;{byte};{byte};{byte})|{_one_of(_SIMPLE_SGR)})"
    return f"\x1b\\[{parameter}(?:;{parameter}){{0,5}}m"


# The bulk of a log in one C-level match: ordinary text and canonical SGR sequences, which the
# state machine would copy unchanged (every line of a test runner's output is coloured). ASCII
# text (most logs) is matched with the shorter class of the special characters it can contain.
_ORDINARY_RUN = re.compile(f"(?:[^{_SPECIAL_CHARACTERS}]++|{_canonical_sgr_pattern()})*+")
_ORDINARY_ASCII_RUN = re.compile(f"(?:[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]++|{_canonical_sgr_pattern()})*+")


def _number(text: str) -> int | None:
    """Parse one SGR parameter; ``""`` means 0; anything absurd is None."""
    if text == "":
        return 0
    if len(text) > 5 or not text.isdigit():
        return None
    value = int(text)
    return value if value <= 255 else None


@lru_cache(maxsize=4096)
def normalise_sgr(body: str) -> str | None:
    """Canonical SGR parameters for ``body`` (the part between ``ESC[`` and ``m``).

    Returns ``None`` when the whole sequence must be dropped, otherwise a string of the form
    ``\\d+(;\\d+)*`` to be emitted as ``ESC[<result>m``.
    """
    if not _SGR_BODY.fullmatch(body):
        return None
    if body == "":
        return "0"
    groups = body.split(";")
    if sum(len(group.split(":")) for group in groups) > MAX_SGR_PARAMS:
        return None
    parsed: list[list[int]] = []
    for group in groups:
        numbers = [_number(part) for part in group.split(":")]
        if any(number is None for number in numbers):
            return None
        parsed.append([number for number in numbers if number is not None])
    kept: list[int] = []
    index = 0
    while index < len(parsed):
        code, *subs = parsed[index]
        index += 1
        if code in _EXTENDED_COLOUR or code in _UNDERLINE_COLOUR:
            if subs:
                # Colon form: 38:5:n, 38:2:r:g:b or 38:2:<colour space>:r:g:b.
                args = subs
            else:
                args = [group[0] for group in parsed[index:index + 4]]
                if args[:1] == [5]:
                    index += 2
                    args = args[:2]
                elif args[:1] == [2]:
                    index += 4
                    args = args[:4]
                else:
                    index += 1 if args else 0
                    args = args[:1]
            colour = _extended_colour(args)
            if colour is not None and code in _EXTENDED_COLOUR:
                kept.extend([code, *colour])
        elif code == 4 and subs:
            kept.append(24 if subs[0] == 0 else 4)
        elif code in _SIMPLE_SGR:
            kept.append(code)
    if not kept:
        return None
    return ";".join(str(code) for code in kept)


def _extended_colour(args: list[int]) -> list[int] | None:
    if len(args) >= 2 and args[0] == 5:
        return [5, args[1]]
    if args[:1] == [2]:
        components = args[1:]
        if len(components) == 4:
            components = components[1:]
        if len(components) == 3:
            return [2, *components]
    return None


class TraceSanitizer:
    """Incremental sanitizer: feed decoded text in any chunking, get safe text back.

    State (an unfinished escape sequence) is carried between :meth:`feed` calls, so a sequence
    split across network reads is still recognised. Memory is bounded: only a CSI body of at most
    :data:`MAX_CSI` characters is ever held back; control-string payloads are counted, not kept.
    """

    def __init__(self) -> None:
        self._state = _GROUND
        self._buffer: list[str] = []
        self._buffered = 0
        self._count = 0

    @property
    def in_sequence(self) -> bool:
        """True while an escape sequence is unfinished (held back until the next chunk)."""
        return self._state != _GROUND

    def feed(self, chunk: str) -> str:
        """Sanitize the next piece of the stream; return the text that is safe to show now."""
        out: list[str] = []
        position = 0
        length = len(chunk)
        ordinary = _ORDINARY_ASCII_RUN if chunk.isascii() else _ORDINARY_RUN
        while position < length:
            state = self._state
            if state == _GROUND:
                run = ordinary.match(chunk, position)  # always matches (maybe nothing)
                run_end = run.end() if run is not None else position
                if run_end > position:
                    out.append(chunk[position:run_end])
                    position = run_end
                    if position == length:
                        break
                match = _GROUND_SPECIAL.search(chunk, position)
                if match is None:
                    out.append(chunk[position:])
                    break
                start = match.start()
                if start > position:
                    out.append(chunk[position:start])
                if chunk[start] == ESC:
                    # Fast path for the common case: the whole CSI is in this chunk.
                    whole = _WHOLE_CSI.match(chunk, start)
                    if whole is not None:
                        if whole.group(2) == "m":
                            params = normalise_sgr(whole.group(1))
                            if params is not None:
                                out.append(f"{ESC}[{params}m")
                        position = whole.end()
                        continue
                self._ground_special(chunk[start], out)
                position = start + 1
            elif state == _STRING:
                match = _STRING_STOP.search(chunk, position)
                stop = match.start() if match is not None else length
                self._count += stop - position
                if self._count > MAX_STRING:
                    # Abandon the sequence: what follows the cap is shown as text.
                    position = stop - (self._count - MAX_STRING)
                    self._reset()
                    continue
                if match is None:
                    break
                self._string_stop(chunk[stop], out)
                position = stop + 1
            else:
                position = self._sequence_char(chunk, position, out)
        return "".join(out)

    def flush(self) -> str:
        """End of stream: drop any unfinished sequence and return to the ground state."""
        self._reset()
        return ""

    def _reset(self) -> None:
        self._state = _GROUND
        self._buffer.clear()
        self._buffered = 0
        self._count = 0

    def _ground_special(self, char: str, out: list[str]) -> None:
        if char == ESC:
            self._state = _ESC
        elif char == "\x9b":
            self._state = _CSI_IGNORE
            self._count = 0
        elif char in _STRING_INTRODUCERS_8BIT:
            self._state = _STRING
            self._count = 0
        elif "\ud800" <= char <= "\udfff":
            out.append("\ufffd")
        # Every other control, DEL, C1 and bidi/format character is dropped.

    def _string_stop(self, char: str, out: list[str]) -> None:
        if char == ESC:
            # ST (ESC \) or the start of a new sequence: the ESC state decides.
            self._reset()
            self._state = _ESC
            return
        self._reset()
        if char == "\n":
            out.append("\n")

    def _sequence_char(self, chunk: str, position: int, out: list[str]) -> int:
        """Handle one character in the ESC / CSI states; return the next position."""
        char = chunk[position]
        code = ord(char)
        state = self._state
        if char == ESC:
            self._reset()
            self._state = _ESC
            return position + 1
        if code < 0x20 or code >= 0x7F:
            # Not part of any sequence: abort it and treat the character as ground text.
            self._reset()
            if char in (CAN, SUB):
                return position + 1
            return position
        if state == _ESC:
            if char == "[":
                self._state = _CSI
            elif char in _STRING_INTRODUCERS_7BIT:
                self._state = _STRING
                self._count = 0
            elif code < 0x30:
                self._state = _ESC_INTER
                self._count = 1
            else:
                self._reset()  # single-character escape (ESC c, ESC 7, ESC \ …): dropped
            return position + 1
        if state == _ESC_INTER:
            if code < 0x30:
                self._count += 1
                if self._count > _MAX_INTERMEDIATES:
                    self._reset()
            else:
                self._reset()
            return position + 1
        # CSI or CSI_IGNORE: parameters/intermediates 0x20-0x3F, final 0x40-0x7E.
        if code >= 0x40:
            if state == _CSI and char == "m":
                params = normalise_sgr("".join(self._buffer))
                if params is not None:
                    out.append(f"{ESC}[{params}m")
            self._reset()
            return position + 1
        if state == _CSI:
            self._buffer.append(char)
            self._buffered += 1
            if self._buffered > MAX_CSI:
                self._buffer.clear()
                self._state = _CSI_IGNORE
        return position + 1


def sanitize(text: str) -> str:
    """One-shot :class:`TraceSanitizer` over a complete text."""
    sanitizer = TraceSanitizer()
    return sanitizer.feed(text) + sanitizer.flush()


_CONTROL_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)}
_CONTROL_PICTURES[0x7F] = "\u2421"
_CONTROL_PICTURES[0x0A] = "\n"
_CONTROL_PICTURES[0x09] = "\t"
_RAW_SPECIAL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff"
    "\ud800-\udfff\U000e0000-\U000e007f]"
)


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code in _CONTROL_PICTURES:
        return _CONTROL_PICTURES[code]
    return f"\u27e8U+{code:04X}\u27e9"


def escape_raw(text: str) -> str:
    """A visible, inert form of raw trace text for the "raw" view.

    ESC becomes ``␛`` (so ``ESC[31m`` reads ``␛[31m``), other C0 controls and DEL their Unicode
    control pictures (``␍`` for CR, ``␇`` for BEL), C1 controls, bidi and zero-width format
    characters ``⟨U+009B⟩``-style tags. Only ``\\n`` and ``\\t`` stay as they are. The result
    contains no control character a terminal would act on; render it as plain text.
    """
    return _RAW_SPECIAL.sub(_escape_one, text)
