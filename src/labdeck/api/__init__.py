"""Async client for the GitLab-style REST API v4 (no UI imports here)."""

from __future__ import annotations

from labdeck.api import errors, models
from labdeck.api.client import ApiClient
from labdeck.api.dialect import Dialect
from labdeck.api.pagination import Paginator
from labdeck.api.results import ActionResult, ConnectionHealth, TraceRead
from labdeck.api.retry import RateLimit, RetryPolicy

__all__ = ["ActionResult", "ApiClient", "ConnectionHealth", "Dialect", "Paginator", "RateLimit", "RetryPolicy",
           "TraceRead", "errors", "models"]
