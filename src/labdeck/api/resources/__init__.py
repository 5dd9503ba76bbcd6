"""One module per endpoint family; each exposes a ``*Resource`` class bound to the client."""

from __future__ import annotations
