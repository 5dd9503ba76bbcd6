"""What snapshot tests share: a fixed host name, so that URLs on screen do not contain the port."""

from __future__ import annotations

import difflib
import html
import pickle
import re
from pathlib import Path

import httpx

SHOWN_HOST = "gitlab.example.test"


class FixedHost(httpx.AsyncBaseTransport):
    """Sends ``Host: gitlab.example.test`` so URLs in responses do not contain the random port."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["host"] = SHOWN_HOST
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def svg_text_rows(svg: str) -> list[str]:
    """The text of an SVG screenshot, one string per screen row (cells joined left to right)."""
    rows: dict[float, list[tuple[float, str]]] = {}
    pattern = r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>'
    for match in re.finditer(pattern, svg):
        x, y, text = float(match[1]), float(match[2]), html.unescape(match[3])
        rows.setdefault(y, []).append((x, text))
    return ["".join(text for _, text in sorted(cells)).replace("\xa0", " ") for _, cells in sorted(rows.items())]


def snapshot_text_diff(report_data: Path) -> str:
    """The rows that differ between the expected and the actual screenshot of a failed snapshot test
    (read from pytest-textual-snapshot's report data), so a CI log says what changed on screen."""
    data = pickle.loads(report_data.read_bytes())
    matched, expected, actual = data[0], data[1], data[2]
    if matched:
        return ""
    lines = difflib.unified_diff(svg_text_rows(expected), svg_text_rows(actual), "expected", "actual",
                                 lineterm="", n=0)
    return "\n".join(lines)
