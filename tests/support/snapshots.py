"""What snapshot tests share: a fixed host name, so that URLs on screen do not contain the port."""

from __future__ import annotations

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
