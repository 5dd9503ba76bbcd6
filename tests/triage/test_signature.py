"""Signatures: the first real error line, normalized; platform patterns in logs."""

from __future__ import annotations

from labdeck.triage.signature import normalize, read_log


def test_volatile_parts_are_removed() -> None:
    line = ("\x1b[31m2026-11-02T09:00:01.123Z ERROR: upload to https://artifacts.example.com:8443/x failed: "
            "id 3f2a9c1d0e7b request 123e4567-e89b-12d3-a456-426614174000 from 10.0.3.7:51234 "
            "in /tmp/build-8812/out.txt after 12.5s (attempt 3)\x1b[0m")
    assert normalize(line) == ("<time> ERROR: upload to https://artifacts.example.com:<port>/x failed: id <hex> "
                               "request <uuid> from <ip> in <tmp>/out.txt after <dur> (attempt <n>)")


def test_two_runs_of_the_same_failure_share_a_signature() -> None:
    one = read_log("$ make\nsrc/db.c:42:7: error: expected ';' before '}' token\nERROR: Job failed: exit code 1\n")
    two = read_log("$ make\nsrc/db.c:57:3: error: expected ';' before '}' token\nERROR: Job failed: exit code 2\n")
    assert one.signature == two.signature == "src/db.c:<n>:<n>: error: expected ';' before '}' token"
    assert one.platform is None and one.error_text.startswith("src/db.c:42:7")


def test_the_error_the_log_viewer_finds_is_the_one_used() -> None:
    log = "\n".join(["collected 12 items", "    def test_x():", ">       assert 1 == 2",
                     "E       assert 1 == 2", "FAILED tests/test_x.py::test_x - assert 1 == 2",
                     "ERROR: Job failed: exit code 1"])
    assert read_log(log).signature == "E assert <n> == <n>"


def test_platform_patterns_and_after_script_cut() -> None:
    oom = read_log("Killed\nERROR: Job failed: exit code 137\n").platform
    assert oom is not None and (oom.label, oom.line, oom.text) == (
        "out of memory (exit code 137)", 2, "ERROR: Job failed: exit code 137")
    assert read_log("write /builds/x: no space left on device\n").platform is not None
    pulled = read_log("section_end:1:prepare_executor\r\x1b[0K\x1b[31;1mERROR: Job failed (system failure): failed to "
                      'pull image "ruby:3.3" with specified policies [always]: Get "https://registry-1.docker.io/v2/"\n')
    # Both are the platform's words; which label wins is the cause finder's choice.
    assert pulled.platform is not None and pulled.platform.label in (
        "image pull from registry-1.docker.io failed", "runner system failure")
    assert pulled.signature.startswith("ERROR: Job failed (system failure): failed to pull image")


def test_cleanup_noise_after_the_script_is_not_the_failure() -> None:
    assert read_log("E   assert 0\nRunning after_script\nno space left on device\n").platform is None
