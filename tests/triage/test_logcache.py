"""The finished-log cache: private files, bounded, in the cache directory."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from labdeck.base import paths
from labdeck.triage.logcache import LogCache


def test_logs_are_private_and_found_again(tmp_path: Path) -> None:
    cache = LogCache()
    assert cache.directory == paths.log_cache_dir()
    assert cache.put("https://gitlab.example.com/", 12, 345, b"line\n")
    assert cache.get("https://gitlab.example.com", 12, 345) == b"line\n"
    assert cache.get("https://gitlab.example.com", 12, 346) is None
    assert cache.get("https://other.example.com", 12, 345) is None
    files = list(cache.directory.iterdir())
    assert len(files) == 1 and stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(cache.directory.stat().st_mode) == 0o700
    assert "gitlab" not in files[0].name and "345" not in files[0].name


def test_the_cache_stays_under_its_bound_dropping_the_least_recently_used(tmp_path: Path) -> None:
    cache = LogCache(tmp_path / "logs", max_bytes=10_000)
    for job_id in range(5):
        assert cache.put("https://x", 1, job_id, b"x" * 3000)
        os.utime(cache._path("https://x", 1, job_id), (1000 + job_id, 1000 + job_id))
    assert cache.size() <= 10_000
    assert cache.get("https://x", 1, 4) is not None and cache.get("https://x", 1, 0) is None
    assert not cache.put("https://x", 1, 99, b"y" * 20_000)  # bigger than the whole cache: not kept
