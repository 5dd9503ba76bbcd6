"""The first-error finder: realistic failure shapes (with the colours the tools really print), the
runner trailer as a last resort, navigation for the viewer's e/E keys, streaming and cost."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labdeck.logtext.error_lines import ErrorFinder, ErrorIndex, find_errors, find_errors_in_text
from labdeck.logtext.lines import LineIndex
from labdeck.logtext.sanitize import sanitize

ESC = "\x1b"
HEAD = [
    f"{ESC}[0KRunning with gitlab-runner 16.5.0 (853330f9){ESC}[0;m",
    f"section_start:1700000000:prepare_executor\r{ESC}[0K{ESC}[0K{ESC}[36;1mPreparing the \"docker\" executor{ESC}[0;m",
    f"section_end:1700000003:prepare_executor\r{ESC}[0K",
    f"section_start:1700000003:step_script\r{ESC}[0K{ESC}[0K{ESC}[36;1mExecuting \"step_script\" stage of the job script{ESC}[0;m",
    f"{ESC}[32;1m$ make test{ESC}[0;m",
]
TAIL = [
    f"section_end:1700000100:step_script\r{ESC}[0K",
    f"section_start:1700000100:cleanup_file_variables\r{ESC}[0K{ESC}[0K{ESC}[36;1mCleaning up project directory and file based variables{ESC}[0;m",
    f"section_end:1700000101:cleanup_file_variables\r{ESC}[0K",
    f"{ESC}[31;1mERROR: Job failed: exit code 1",
    f"{ESC}[0;m",
]


def job_log(body: list[str]) -> str:
    """A whole trace as the server sends it: runner header, the job's output, runner trailer."""
    return "\n".join(HEAD + body + TAIL) + "\n"


def scan(body: list[str]) -> ErrorIndex:
    return find_errors_in_text(sanitize(job_log(body)))


def at(offset: int) -> int:
    """The 0-based line index of ``body[offset]`` inside :func:`job_log`."""
    return len(HEAD) + offset


# (name, body lines, [(body offset, kind), …] expected in order)
SHAPES: list[tuple[str, list[str], list[tuple[int, str]]]] = [
    ("gcc with colours", [
        f"{ESC}[01m{ESC}[Kmain.c:{ESC}[m{ESC}[K In function '{ESC}[01m{ESC}[Kmain{ESC}[m{ESC}[K':",
        f"{ESC}[01m{ESC}[Kmain.c:3:5:{ESC}[m{ESC}[K {ESC}[01;31m{ESC}[Kerror: {ESC}[m{ESC}[Kimplicit declaration of function 'foo'",
        "    3 |     foo();",
        "      |     ^~~",
        "cc1: all warnings being treated as errors",
        "make: *** [Makefile:4: main.o] Error 1",
    ], [(1, "compiler"), (5, "make")]),
    ("clang fatal error", ["src/x.cpp:10:12: fatal error: 'foo.h' file not found", "1 error generated."],
     [(0, "compiler")]),
    ("javac", ["Foo.java:10: error: cannot find symbol", "1 error"], [(0, "compiler")]),
    ("tsc, both formats", [
        "src/app.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.",
        f"{ESC}[96msrc/app.ts{ESC}[0m:{ESC}[93m14{ESC}[0m:{ESC}[93m3{ESC}[0m - {ESC}[91merror{ESC}[0m{ESC}[90m TS2304: {ESC}[0mCannot find name 'x'.",
        "Found 2 errors in the same file, starting at: src/app.ts:12",
    ], [(0, "compiler"), (1, "compiler")]),
    ("pytest with colours", [
        "============================= test session starts ==============================",
        "tests/test_calc.py .F.                                                   [100%]",
        "=================================== FAILURES ===================================",
        "    def test_divide():",
        ">       assert divide(1, 0) == 0",
        f"{ESC}[1m{ESC}[31mE       ZeroDivisionError: division by zero{ESC}[0m",
        f"{ESC}[1m{ESC}[31mE       assert False{ESC}[0m",
        "",
        f"{ESC}[1m{ESC}[31mtests/test_calc.py{ESC}[0m:7: ZeroDivisionError",
        "=========================== short test summary info ============================",
        f"{ESC}[31mFAILED{ESC}[0m tests/test_calc.py::{ESC}[1mtest_divide{ESC}[0m - ZeroDivisionError: division by zero",
        f"{ESC}[31mFAILED{ESC}[0m tests/test_calc.py::test_modulo - assert 1 == 2",
        f"{ESC}[31m========================= {ESC}[31m{ESC}[1m2 failed{ESC}[0m, {ESC}[32m1 passed{ESC}[0m{ESC}[31m in 0.05s{ESC}[0m",
    ], [(5, "pytest"), (10, "pytest"), (11, "pytest")]),
    ("python traceback", [
        "Traceback (most recent call last):",
        '  File "/app/manage.py", line 22, in <module>',
        "    main()",
        '  File "/app/manage.py", line 18, in main',
        "    execute_from_command_line(sys.argv)",
        "KeyError: 'DATABASE_URL'",
    ], [(0, "traceback")]),
    ("npm, old and new spelling", [
        "> app@1.0.0 build", "> webpack --mode production", "",
        f"npm {ESC}[31mERR!{ESC}[39m code ELIFECYCLE", "npm ERR! errno 1", "npm ERR! Exit status 1",
        "", "npm error code 1", "npm error path /app",
    ], [(3, "npm"), (7, "npm")]),
    ("go test", [
        "=== RUN   TestParse", "    parse_test.go:14: got 2, want 3", "--- FAIL: TestParse (0.00s)",
        "    --- FAIL: TestParse/sub (0.00s)", "FAIL", "FAIL\texample.com/parse\t0.003s",
    ], [(2, "go"), (3, "go")]),
    ("go panic", ["panic: runtime error: index out of range [3] with length 3", "", "goroutine 1 [running]:"],
     [(0, "go")]),
    ("rust with colours", [
        "   Compiling demo v0.1.0 (/builds/demo)",
        f"{ESC}[0m{ESC}[1m{ESC}[38;5;9merror[E0308]{ESC}[0m{ESC}[0m{ESC}[1m: mismatched types{ESC}[0m",
        " --> src/main.rs:4:18",
        f"{ESC}[1m{ESC}[31merror{ESC}[0m{ESC}[1m:{ESC}[0m could not compile `demo` (bin \"demo\") due to 1 previous error",
    ], [(1, "rust"), (3, "error")]),
    ("git", ["Fetching changes with git depth set to 20...",
             "fatal: could not read Username for 'https://gitlab.example.com': No such device or address"],
     [(1, "git")]),
    ("make", ["make[1]: *** [Makefile:20: build] Error 2", "make: *** No rule to make target 'tset'.  Stop."],
     [(0, "make"), (1, "make")]),
    ("pip, maven, node", [
        "ERROR: Could not find a version that satisfies the requirement foo==9.9",
        "[INFO] BUILD FAILURE", "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin",
        "Error: Cannot find module 'express'",
    ], [(0, "error"), (2, "error"), (3, "error")]),
]


@pytest.mark.parametrize(("name", "body", "expected"), SHAPES, ids=[case[0] for case in SHAPES])
def test_each_failure_shape_is_found_before_the_runner_trailer(name: str, body: list[str],
                                                                expected: list[tuple[int, str]]) -> None:
    index = scan(body)
    assert [(m.index, m.kind) for m in index] == [(at(offset), kind) for offset, kind in expected]
    assert index.first is not None and not index.first.is_trailer
    assert len(index.trailer) == 1  # the runner's line is known, but only as a last resort
    for match in index:
        assert ESC not in match.text and match.line_number == match.index + 1


def test_runner_trailer_is_the_last_resort() -> None:
    index = scan(["Deploying to production...", "curl: (22) The requested URL returned 503"])
    assert [m.kind for m in index] == ["runner"]
    assert index.first is not None and index.first.text == "ERROR: Job failed: exit code 1"
    assert index.first.index == at(2) + 3  # after the step_script end and the cleanup section


def test_python_traceback_carries_the_exception_line() -> None:
    body = SHAPES[5][1]
    match = scan(body).first
    assert match is not None and match.kind == "traceback"
    assert match.detail == "KeyError: 'DATABASE_URL'" and match.detail_index == at(5) and match.end == at(5)
    assert match.describe() == f"line {at(0) + 1}: Traceback (most recent call last): → line {at(5) + 1}: KeyError: 'DATABASE_URL'"


def test_chained_tracebacks_are_two_matches() -> None:
    body = ["Traceback (most recent call last):", '  File "a.py", line 1, in <module>', "KeyError: 'x'", "",
            "During handling of the above exception, another exception occurred:", "",
            "Traceback (most recent call last):", '  File "a.py", line 3, in <module>', "RuntimeError: config broken"]
    index = scan(body)
    assert [(m.index, m.detail) for m in index] == [(at(0), "KeyError: 'x'"), (at(6), "RuntimeError: config broken")]


def test_lines_that_only_mention_errors_are_not_errors() -> None:
    index = scan([
        f"{ESC}[32;1m$ grep -R \"error:\" src/ || true{ESC}[0;m",  # the runner's echo of a command
        "Compiling with -Werror", "0 errors, 0 warnings", "error_count=0", "Checking for errors... none",
        "cc1: all warnings being treated as errors", "tests/test_calc.py::test_error_message PASSED",
        "ERRORS = []", "Found 0 errors.",
    ])
    assert [m.kind for m in index] == ["runner"]


def test_navigation_for_the_e_keys() -> None:
    index = scan(SHAPES[0][1] + SHAPES[5][1])
    starts = [m.index for m in index]
    assert len(starts) == 3
    assert index.next_after(-1) is index.first
    assert index.next_after(starts[0]).index == starts[1]  # type: ignore[union-attr]
    assert index.next_after(starts[0] - 1).index == starts[0]  # type: ignore[union-attr]
    assert index.next_after(starts[-1]) is None
    assert index.previous_before(starts[1]).index == starts[0]  # type: ignore[union-attr]
    assert index.previous_before(starts[0]) is None
    assert index.previous_before(10_000).index == starts[-1]  # type: ignore[union-attr]
    traceback = index.matches[-1]
    assert index.at(traceback.end) is traceback and index.at(traceback.index + 2) is traceback
    assert index.at(starts[0] + 1) is None  # the source excerpt under a compiler error


def test_a_growing_log_is_scanned_once() -> None:
    text = sanitize(job_log(SHAPES[4][1]))
    lines = text.split("\n")
    finder = ErrorFinder()
    seen = []
    for line in lines[:12]:
        if (new := finder.feed(line)) is not None:
            seen.append(new.index)
    finder.feed_lines(lines[12:])
    assert finder.lines_seen == len(lines)
    assert [m.index for m in finder.index] == [m.index for m in find_errors(lines)]
    assert seen == [at(5)]


def test_same_answer_from_the_viewer_line_index() -> None:
    raw = job_log(SHAPES[0][1] + SHAPES[10][1]).encode()
    lines = LineIndex(keep_raw=False)
    for start in range(0, len(raw), 37):  # arbitrary network chunks
        lines.append(raw[start:start + 37])
    lines.finish()
    from_viewer = find_errors(lines.lines(0, len(lines)))
    assert [(m.index, m.kind) for m in from_viewer] == [(m.index, m.kind) for m in find_errors_in_text(sanitize(raw.decode()))]
    assert lines.plain_line(from_viewer.matches[0].index).startswith("main.c:3:5: error:")


def test_a_million_lines_stay_cheap() -> None:
    filler = ["Collecting requests==2.31.0", f"{ESC}[32;1m  Downloading requests-2.31.0.whl (62 kB){ESC}[0;m",
              "Installing collected packages: urllib3, idna, requests", "test_api.py::test_list PASSED [ 10%]"]
    lines = filler * 250_000
    lines[700_001] = "src/app.c:1:1: error: expected ';'"
    started = time.perf_counter()
    index = find_errors(lines)
    elapsed = time.perf_counter() - started
    assert [m.index for m in index] == [700_001]
    assert elapsed < 10  # about 0.5 s on the dev box; generous for a shared CI machine


# --- properties --------------------------------------------------------------------------------

POOL = [line for _, body, _ in SHAPES for line in body] + [
    "Running tests...", "ok", "", "    indented", "Downloading 50%\rDownloading 100%", "ERROR: Job failed: exit code 2",
]
SGR = st.sampled_from(["", f"{ESC}[31m", f"{ESC}[1;33m", f"{ESC}[0m", f"{ESC}[38;5;196m", f"{ESC}[0;m"])


def _summary(index: ErrorIndex) -> list[tuple[int, str, int, str | None]]:
    return [(m.index, m.kind, m.end, m.detail) for m in index]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(POOL), max_size=60), st.lists(st.integers(0, 60), max_size=5))
def test_chunking_does_not_change_the_answer(lines: list[str], cuts: list[int]) -> None:
    whole = find_errors(lines)
    finder = ErrorFinder()
    start = 0
    for cut in sorted(set(cuts)):
        finder.feed_lines(lines[start:cut])
        start = max(start, cut)
    for line in lines[start:]:
        finder.feed(line)
    assert _summary(finder.index) == _summary(whole)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(POOL), SGR, SGR), max_size=40))
def test_colour_around_a_line_does_not_change_the_answer(items: list[tuple[str, str, str]]) -> None:
    plain = [line for line, _, _ in items]
    coloured = [f"{before}{line}{after}" for line, before, after in items]
    assert [(m.index, m.kind) for m in find_errors(coloured)] == [(m.index, m.kind) for m in find_errors(plain)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(POOL), max_size=60), st.integers(-2, 62))
def test_navigation_matches_a_linear_search(lines: list[str], cursor: int) -> None:
    index = find_errors(lines)
    starts = [m.index for m in index]
    assert starts == sorted(set(starts))
    if index.primary:
        assert all(not m.is_trailer for m in index)
    after = [s for s in starts if s > cursor]
    before = [s for s in starts if s < cursor]
    nxt, prev = index.next_after(cursor), index.previous_before(cursor)
    assert (nxt.index if nxt else None) == (after[0] if after else None)
    assert (prev.index if prev else None) == (before[-1] if before else None)
