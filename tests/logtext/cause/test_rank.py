"""Ranking: the failing command first, earlier commands' error lines are noise, what the passing
log printed too goes last, the end of the failing command's output when nothing matches."""

from __future__ import annotations

from labdeck.logtext.cause import read_cause, read_cause_lines
from labdeck.logtext.cause.scan import CHUNK


def test_error_lines_of_a_command_that_succeeded_are_noise() -> None:
    log = ("$ ./configure\nchecking for foo... error: not found, using bundled copy\n"
           "$ make\ncc -c a.c\na.c:3:1: error: expected ';'\nmake: *** [a.o] Error 1\n"
           "ERROR: Job failed: exit code 2\n")
    answer = read_cause(log)
    assert answer.error is not None and answer.error.line == 5
    assert [block.line for block in answer.candidates][:1] == [5]


def test_the_end_of_the_failing_command_when_nothing_matches() -> None:
    log = "$ ./check.sh\nchecking schema\nschema v3 does not match the database (v2)\n\nERROR: Job failed: exit code 1\n"
    answer = read_cause(log)
    assert answer.error is not None and answer.error.kind == "tail" and answer.error.line == 3
    assert answer.signature == "schema v3 does not match the database (v2)"


def test_never_the_runner_trailer() -> None:
    answer = read_cause("ERROR: Job failed: exit code 1\n")
    assert answer.error is None or "Job failed" not in answer.error.text
    assert "Job failed" not in answer.signature


def test_travis_marks_the_failed_command() -> None:
    log = ('$ npm run lint\nsrc/a.js: error something\nThe command "npm run lint" exited with 0.\n'
           "$ npm test\n  1) cart totals\n     AssertionError: expected 3 to equal 4\n"
           'The command "npm test" exited with 1.\n$ echo done\ndone\nDone. Your build exited with 1.\n')
    answer = read_cause(log)
    assert answer.error is not None and answer.error.line == 5


def test_github_actions_groups_and_the_exit_mark() -> None:
    log = ("2026-11-26T08:35:30.1Z ##[group]Run npm ci\n2026-11-26T08:35:31.1Z added 10 packages\n"
           "2026-11-26T08:35:31.2Z ##[endgroup]\n2026-11-26T08:35:32.1Z ##[group]Run go test ./...\n"
           "2026-11-26T08:35:33.1Z --- FAIL: TestAdd (0.00s)\n2026-11-26T08:35:33.1Z     add_test.go:9: got 3\n"
           "2026-11-26T08:35:33.2Z ##[error]Process completed with exit code 1.\n")
    answer = read_cause(log)
    assert answer.error is not None and answer.error.line == 5 and answer.error.kind == "go"


def test_lines_the_passing_run_printed_too_go_last() -> None:
    noise = "error: config key 'cache_dir' is deprecated (used /tmp/build-41/cache)"
    failing = f"$ ./run-checks\n{noise}\nerror: widget 7 missing from the catalogue\nERROR: Job failed: exit code 1\n"
    passing = f"$ ./run-checks\n{noise.replace('41', '97')}\nall checks passed\nJob succeeded\n"
    without = read_cause(failing)
    with_passing = read_cause(failing, passing)
    assert without.error is not None and without.error.line == 2
    assert with_passing.error is not None and with_passing.error.line == 3
    assert with_passing.candidates[-1].line == 2
    assert with_passing.new_lines is not None and 2 not in with_passing.new_lines and 3 in with_passing.new_lines
    assert without.new_lines is None


def test_streaming_gives_the_same_answer_as_the_whole_text() -> None:
    body = [f"compiling unit {n}" for n in range(3 * CHUNK)]
    lines = ["$ make", *body[:CHUNK], "src/x.c:1:1: error: boom", *body[CHUNK:], "ERROR: Job failed: exit code 1"]
    whole = read_cause("\n".join(lines))
    streamed = read_cause_lines(iter(lines))
    as_bytes = read_cause_lines(line.encode() for line in lines)
    assert whole == streamed == as_bytes
    assert whole.error is not None and whole.error.line == CHUNK + 2 and whole.line_count == len(lines)


def test_an_empty_log_has_no_error() -> None:
    answer = read_cause(b"")
    assert answer.error is None and answer.signature == "" and answer.candidates == ()


def test_a_line_of_megabytes_is_read_by_its_start() -> None:
    answer = read_cause("$ make\nerror: " + "a:1 " * 1_000_000 + "\nERROR: Job failed: exit code 1\n")
    assert answer.error is not None and answer.error.line == 2 and len(answer.error.text) <= 2000


def test_a_runners_report_comes_before_the_end_of_the_output() -> None:
    log = ("$ make test\npytest -q --tb=no\n..F\nFAILED tests/test_cart.py::test_total - assert 3 == 4\n"
           "1 failed, 2 passed in 0.05s\nmake: *** [Makefile:3: test] Error 1\nERROR: Job failed: exit code 2\n")
    answer = read_cause(log)
    assert answer.error is not None and answer.error.line == 4


def test_the_end_of_the_output_comes_before_a_consequence() -> None:
    log = ("$ make deploy\n./deploy.sh staging\nrefusing to deploy: staging is frozen until 2026-12-01\n"
           "make: *** [Makefile:9: deploy] Error 3\nERROR: Job failed: exit code 2\n")
    answer = read_cause(log)
    assert answer.error is not None and answer.error.line == 3 and answer.error.kind == "tail"


def test_a_command_that_failed_without_a_word_is_the_answer() -> None:
    log = "$ make build\nbuilt app\n$ test -f dist/app.tar.gz\nERROR: Job failed: exit code 1\n"
    answer = read_cause(log)
    assert answer.error is not None and (answer.error.line, answer.error.kind) == (3, "command")
    assert answer.signature == "test -f dist/app.tar.gz"


def test_the_end_of_the_output_before_the_failure_mark_and_after_it_when_nothing_came_before() -> None:
    before = "$ ./deploy.sh\nuploading bundle\n##[error]Process completed with exit code 1.\nrollback: host gone\n"
    answer = read_cause(before)
    assert answer.error is not None and (answer.error.line, answer.error.kind) == (2, "tail")
    assert answer.signature == "uploading bundle"
    # Nothing meaningful before the mark: the command's lines after it are its end.
    after = "$ ./deploy.sh\n##[error]Process completed with exit code 1.\nrollback: host gone\n$ echo next\n"
    for answer in (read_cause(after), read_cause_lines(iter(after.splitlines()))):
        assert answer.error is not None and (answer.error.line, answer.error.kind) == (3, "tail")
        assert answer.signature == "rollback: host gone"


def test_a_progress_line_whose_dots_differ_is_not_new_since_the_green_run() -> None:
    """``tests/test_x.py ..F..  [ 40%]`` is the same line as the green run's ``.....``: the ``F``
    (and the failure's own lines) are read below, a progress line is never what changed."""
    passing = ("$ pytest\ntests/test_cart.py .....                                                 [ 40%]\n"
               "tests/test_tax.py .......                                                 [100%]\n"
               "..........                                                               [100%]\n")
    failing = ("$ pytest\ntests/test_cart.py ..F..                                                 [ 40%]\n"
               "tests/test_tax.py ...s..x                                                 [100%]\n"
               "..F.....E.                                                               [100%]\n"
               "E       assert 3 == 4\nFAILED tests/test_cart.py::test_total - assert 3 == 4\n")
    answer = read_cause(failing, passing)
    assert answer.new_lines == frozenset({5, 6})
    assert answer.error is not None and answer.error.line == 5
    # The same file's line later in the run (more tests before it): [100%] is padded otherwise.
    moved = failing.replace("tests/test_cart.py ..F..                                                 [ 40%]",
                            "tests/test_cart.py ..F..                                                 [100%]")
    assert read_cause(moved, passing).new_lines == frozenset({5, 6})


def test_the_end_of_the_output_skips_a_cleanup_that_ran_after_the_error() -> None:
    log = ("$ ./ci/verify.sh\nverifying bundle\nsignature of bundle.tgz does not match the release key\n"
           "cleaning up /tmp/verify.x1\nremoved 3 files\nERROR: Job failed: exit code 1\n")
    answer = read_cause(log)
    assert answer.error is not None and answer.error.kind == "tail" and answer.error.line == 3
    assert answer.signature == "signature of bundle.tgz does not match the release key"


def test_a_unified_diff_in_the_output_is_not_a_buildkite_heading() -> None:
    log = ("$ ./gen.sh\ngenerated\n$ git diff --exit-code\ndiff --git a/api.md b/api.md\n--- a/api.md\n+++ b/api.md\n"
           "@@ -1 +1 @@\n-v1\n+v2\nERROR: Job failed: exit code 1\n")
    answer = read_cause(log)
    assert answer.error is not None and (answer.error.line, answer.error.kind) == (4, "diff")


def test_the_errors_of_the_file_the_command_names_come_first() -> None:
    """``mypy src/app/b.py`` also reports the modules it imports: the named file's error is the one
    to read; a command that names no file keeps the first error."""
    output = ('src/app/a.py:3: error: Incompatible types in assignment  [assignment]\n'
              'src/app/b.py:7: error: Name "total" is not defined  [name-defined]\n'
              'Found 2 errors in 2 files (checked 1 source file)\n'
              'ERROR: Job failed: exit code 1\n')
    named = read_cause("$ mypy src/app/b.py\n" + output).error
    assert named is not None and named.line == 3
    unnamed = read_cause("$ mypy src\n" + output).error
    assert unnamed is not None and unnamed.line == 2


def test_gofmt_diff_of_a_file_at_the_root_is_one_block_not_a_heading() -> None:
    """``gofmt -d .`` prints ``--- main.go.orig`` / ``+++ main.go`` (no slash, no time) and hunk lines
    such as ``+ type Item struct {``: neither starts a command, so the diff is the failing command's."""
    log = ("$ test -z \"$(gofmt -d . | tee /dev/stderr)\"\ndiff main.go.orig main.go\n--- main.go.orig\n"
           "+++ main.go\n@@ -4,3 +4,3 @@\n type Item struct {\n-\tQty   int\n+\tQty int\n }\n"
           "ERROR: Job failed: exit code 1\n")
    answer = read_cause(log)
    assert answer.error is not None and (answer.error.line, answer.error.kind) == (2, "diff")


def test_sphinx_warnings_are_the_cause_only_when_w_makes_them_fatal() -> None:
    """Sphinx before 7.3 says ``Warning, treated as error:`` and prints the warning under it; without
    -W a ``WARNING:`` line is not what failed the job."""
    old = ("$ sphinx-build -W -b html docs _build\nRunning Sphinx v5.3.0\nWarning, treated as error:\n"
           "docs/index.rst:6:toctree contains reference to nonexisting document 'usage'\n"
           "ERROR: Job failed: exit code 2\n")
    answer = read_cause(old)
    assert answer.error is not None and answer.error.line == 3 and "index.rst:6" in answer.error.text
    lenient = ("$ sphinx-build -b html docs _build\ndocs/index.rst:6: WARNING: duplicate label intro\n"
               "build succeeded, 1 warning.\n$ ./publish.sh\npublish: token expired for docs.example.org\n"
               "ERROR: Job failed: exit code 1\n")
    answer = read_cause(lenient)
    assert answer.error is not None and answer.error.line == 5


def test_a_command_traced_right_after_a_diff_is_a_command() -> None:
    """Jenkins traces ``+ cmd``: after a diff's last hunk (its header counts its lines) the next
    ``+ ./check.sh`` starts a command; it failed without a word, so the command is what to read."""
    log = ("[Pipeline] sh\n+ git diff HEAD~1 -- VERSION\ndiff --git a/VERSION b/VERSION\n--- a/VERSION\n"
           "+++ b/VERSION\n@@ -1 +1 @@\n-1.2.0\n+1.3.0\n+ ./check.sh\n"
           "ERROR: script returned exit code 2\nFinished: FAILURE\n")
    answer = read_cause(log)
    assert answer.error is not None and (answer.error.line, answer.error.kind) == (9, "command")
