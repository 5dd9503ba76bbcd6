"""A test runner's progress mark and the detail it prints later for the same test.

Some runners mark a failing test with one line while the tests run (ava's ``✘ [fail]: title``,
automake's ``FAIL: tests/x``) and print what went wrong later, under a header that names the test
again: ava repeats the title alone, then the file, the code frame and the difference; automake's
``test-suite.log`` dump repeats the mark underlined with ``=``. The detail is what to read first.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_MARK = re.compile(r"\s*(?:[✖✘✗❌]\s+(?:\[fail\]:\s+)?|FAIL:?\s+)(?P<name>\S.*?)\s*$")
"""A one-line failure mark and the test it names."""
_UNDERLINE = re.compile(r"\s*(?:=+|-+|─+)$")


def detail_of(text: str, raw: Callable[[int], str], clean: Callable[[str], str], offset: int,
              limit: int) -> tuple[int, int] | None:
    """Where the detail of the test that the one-line mark ``text`` (at ``offset``) names is, as the
    first and last offsets of its block, looking at the lines ``raw`` gives (``clean`` cleans one)
    up to ``limit``; None when ``text`` is no such mark or no detail follows.

    The detail's header is a line that is the test's name alone, or the mark again underlined;
    its block runs through the header's first paragraph of content (blank lines and the underline
    right under the header are skipped)."""
    mark = _MARK.match(text)
    if mark is None:
        return None
    name = mark.group("name")
    whole = text.strip()
    def read(index: int) -> str:
        return clean(raw(index))

    for index in range(offset + 1, limit):
        if name not in raw(index):  # most lines: no need to clean them
            continue
        line = read(index).strip()
        if line == name or (line == whole and index + 1 < limit and _UNDERLINE.match(read(index + 1))):
            return index, _paragraph_end(read, index, limit)
    return None


def _paragraph_end(read: Callable[[int], str], header: int, limit: int) -> int:
    end = header
    content = False
    for index in range(header + 1, limit):
        line = read(index)
        if not line.strip():
            if content:
                break
            continue
        if not content and _UNDERLINE.match(line):
            end = index
            continue
        content = True
        end = index
    return end
