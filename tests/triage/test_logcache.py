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


def test_a_log_too_big_to_keep_keeps_its_facts(tmp_path: Path) -> None:
    from labdeck.triage.signature import facts_from_json, facts_json, read_log

    cache = LogCache(tmp_path / "logs")
    huge = b"$ make\n" + b"  CC       src/x.o\n" * (33 * 1024 * 1024 // 19) + b"src/db.c:42:7: error: expected ';'\n"
    assert cache.put("https://x", 1, 7, huge) is False  # the bytes are not kept
    facts = read_log(huge)
    assert cache.put_facts("https://x", 1, 7, facts_json(facts)) is True
    kept = facts_from_json(cache.get_facts("https://x", 1, 7))
    assert kept == facts and kept is not None and kept.signature == "src/db.c:<n>:<n>: error: expected ';'"
    assert cache.get_facts("https://x", 1, 7, "other baseline") is None
    assert oct((tmp_path / "logs").stat().st_mode & 0o777) == "0o700"
