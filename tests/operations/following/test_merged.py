"""The merged log: arrival order, complete lines only, errors across jobs, a bounded window."""

from __future__ import annotations

import tracemalloc

from labdeck.logtext.search import visible
from labdeck.operations.following.merged import MergedLog


def test_lines_enter_in_arrival_order_once_complete() -> None:
    log = MergedLog(["deploy-eu", "deploy-us"])
    log.feed(0, "one\ntw")
    log.feed(1, "uno\n")
    log.feed(0, "o\n")
    assert [(log.entry(seq).job, log.entry(seq).text) for seq in range(log.total)] == [
        (0, "one"), (1, "uno"), (0, "two")]
    log.feed(1, "no newline yet")
    assert log.total == 3
    log.finish(1)
    assert log.entry(3).text == "no newline yet" and log.entry(3).line == 1


def test_error_lines_of_every_job_are_found_in_order() -> None:
    log = MergedLog(["a", "b"])
    log.feed(0, "fine\n")
    log.feed(1, "error: b broke\n")
    log.feed(0, "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: a broke\n")
    first = log.next_error(-1)
    assert first is not None and log.entry(first).job == 1
    second = log.next_error(first)
    assert second is not None and log.entry(second).job == 0 and "Traceback" in log.entry(second).text
    assert log.next_error(second) is None
    assert log.previous_error(second) == first
    assert log.next_error(-1, {0}) == second
    assert [lines.error_count for lines in log.jobs] == [1, 1]


def test_older_lines_leave_the_window_and_are_counted() -> None:
    log = MergedLog(["a", "b"], window=100)
    for number in range(300):
        log.feed(number % 2, f"line {number}\n")
    assert log.total == 300
    assert 100 <= len(log) <= 125
    assert log.dropped == 300 - len(log)
    assert log.entry(log.total - 1).text == "line 299"
    # The job's own line numbers stay those of its whole log.
    assert log.entry(log.total - 1).line == 149


def test_memory_does_not_grow_with_the_text_once_it_is_spooled_to_disk() -> None:
    """What keeps 12 jobs × 100,000 lines under 250 MB (``bench/bench_follow_many.py`` measures the
    RSS): a job's text goes to disk past its spool size and a write batch (256 KB) and the merged
    order is a window; what stays in memory per line is a few bytes of offsets. Long lines here,
    so the text weighs far more than the offsets: megabytes more of log add a small part of them."""
    log = MergedLog(["deploy-eu", "deploy-us"], window=1_000, spool_size=32 * 1024)

    def feed(lines: range) -> int:
        fed = 0
        for job in range(2):
            chunk = "".join(f"{job} line {number:07d} \x1b[32mok\x1b[0m {'x' * 980}\n" for number in lines)
            fed += len(chunk)
            log.feed(job, chunk)
        return fed

    tracemalloc.start()
    try:
        feed(range(0, 400))  # past the spool size and a write batch
        before, _ = tracemalloc.get_traced_memory()
        fed = feed(range(400, 1300))
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        log.close()
    assert fed > 1_500_000
    assert after - before < 0.15 * fed, (after - before, fed)
    assert len(log) <= 1_250 and log.dropped == 2 * 1300 - len(log)


def test_a_log_that_ends_with_only_a_colour_reset_adds_no_blank_line() -> None:
    """GitLab-style logs end ``Job succeeded\\n`` then a reset without a newline: nothing to read,
    so no blank ``deploy-eu │`` row before the job's end line (a last line with text still enters)."""
    log = MergedLog(["deploy-eu", "deploy-us"])
    log.feed(0, "\x1b[32;1mJob succeeded\n\x1b[0;m")
    log.feed(1, "Job succeeded\nno newline at the end")
    log.finish(0)
    log.finish(1)
    shown = [(log.entry(seq).job, visible(log.entry(seq).text)) for seq in range(log.total)]
    assert shown == [(0, "Job succeeded"), (1, "Job succeeded"), (1, "no newline at the end")]
