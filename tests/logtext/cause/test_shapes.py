"""The shape table, one family at a time: each sample is real tool output inside a GitLab job
(the runner's header, ``$ cmd``, the output, the trailer); the answer's block must start on the
line a person reads first, with the expected kind."""

from __future__ import annotations

import pytest

from labdeck.logtext.cause import read_cause
from labdeck.logtext.cause.prefilter import PYTHON
from tests.support.cause_samples import SAMPLES, job


@pytest.mark.parametrize(("name", "command", "output", "offset", "kind"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_the_block_to_read_first(name: str, command: str, output: list[str], offset: int, kind: str) -> None:
    text, first = job(command, output)
    answer = read_cause(text)
    assert answer.error is not None
    assert (answer.error.line, answer.error.kind) == (first + offset, kind), answer.error
    assert answer.error.end >= answer.error.line
    assert "Job failed" not in answer.signature


@pytest.mark.parametrize(("name", "command", "output", "offset", "kind"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_the_prefilter_picks_every_sample(name: str, command: str, output: list[str], offset: int, kind: str) -> None:
    """Every shape's opening line contains one of the prefilter's keywords (else it is never seen)."""
    assert PYTHON.search(output[offset]) is not None


def test_a_traceback_block_runs_through_its_exception_line() -> None:
    text, first = job("python app.py", ["Traceback (most recent call last):", '  File "app.py", line 3, in <module>',
                                        "    import yaml", "ModuleNotFoundError: No module named 'yaml'", "done?"])
    answer = read_cause(text)
    assert answer.error is not None and (answer.error.line, answer.error.end) == (first, first + 3)
    assert answer.signature == "ModuleNotFoundError: No module named 'yaml'"


def test_a_link_failure_reads_through_the_missing_symbol_and_is_named_by_it() -> None:
    """ld names the function first and the missing symbol on the next line (with ``file:line`` when
    built with -g, ``file:(.text+0xa)`` without): the block runs through the symbol's lines to
    collect2's line, and two missing symbols are two signatures, not one "in function `main'"."""
    def link(symbol: str, where: str) -> tuple[str, int]:
        return job("make", ["gcc -o app main.o util.o", "/usr/bin/ld: main.o: in function `main':",
                            f"{where}: undefined reference to `{symbol}'",
                            "collect2: error: ld returned 1 exit status", "make: *** [Makefile:3: app] Error 1"])
    text, first = link("helper", "main.c:(.text+0xa)")
    answer = read_cause(text)
    assert answer.error is not None and (answer.error.line, answer.error.end) == (first + 1, first + 3)
    assert answer.signature == "main.c:(.text+<hex>): undefined reference to `helper'"
    assert read_cause(link("cache_ratio", "main.c:11")[0]).signature == "main.c:<n>: undefined reference to `cache_ratio'"


def test_npms_error_code_line_is_not_the_signature_its_message_is() -> None:
    """``npm error code E404`` is the same for every missing package: the signature is npm's next
    message (skipping ``errno``/``syscall`` fields), which names it, so two packages are two clusters."""
    def install(package: str) -> str:
        return job("npm ci", ["npm error code E404", f"npm error 404 Not Found - GET https://registry.npmjs.org/{package}",
                              "npm error 404", "npm error A complete log of this run can be found in: /root/.npm/x.log"])[0]
    left, right = read_cause(install("left-pad")).signature, read_cause(install("right-pad")).signature
    assert left.endswith("GET https://registry.npmjs.org/left-pad") and left != right
    offline = job("npm ci", ["npm ERR! code ENOTFOUND", "npm ERR! syscall getaddrinfo", "npm ERR! errno ENOTFOUND",
                             "npm ERR! network request to https://npm.acme.example/x failed, reason: getaddrinfo ENOTFOUND"])
    assert read_cause(offline[0]).signature.startswith("npm ERR! network request to https://npm.acme.example/x")


def test_an_assertions_diff_is_not_a_shell_trace_of_commands() -> None:
    """``+ hello ann`` after a diff's ``- …``/``? …`` line, and node's legend ``+ actual - expected``,
    are an assertion's lines, not ``set -x`` echoes: the failing command stays the one that ran
    (unittest's and node's real output; the failure was ``FAILED (failures=1)`` and node's version line)."""
    unittest_out = ["F", "=" * 70, "FAIL: test_greet (test_greet.T.test_greet)", "-" * 70,
                    "Traceback (most recent call last):", '  File "/src/test_greet.py", line 5, in test_greet',
                    '    self.assertEqual(greet("ann"), "hello ann\\nbye ann")',
                    "AssertionError: 'hello  ann\\nbye ann' != 'hello ann\\nbye ann'",
                    "- hello  ann", "?       -", "+ hello ann", "  bye ann", "", "-" * 70, "Ran 1 test in 0.001s",
                    "", "FAILED (failures=1)"]
    text, first = job("python -m unittest", unittest_out)
    answer = read_cause(text)
    assert answer.error is not None and (answer.error.line, answer.error.kind) == (first + 2, "unittest")
    node_out = ["testing slug", "node:assert:90", "  throw new AssertionError(obj);", "  ^", "",
                "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:", "+ actual - expected", "",
                "+ 'hello--world'", "- 'hello-world'", "         ^", "    at Object.<anonymous> (/src/t.js:4:8)",
                "", "Node.js v20.20.2"]
    text, first = job("node t.js", node_out)
    answer = read_cause(text)
    assert answer.error is not None and (answer.error.line, answer.error.kind) == (first + 5, "exception")
    # A real trace of commands is still read as one: the failing command is the last `+ …` line.
    from labdeck.logtext.cause.rank import failing_segment
    from labdeck.logtext.cause.scan import Scanner

    scan = Scanner()
    scan.feed(job("bash -x deploy.sh", ["+ echo start", "start", "- removing old pods", "+ kubectl apply -f web.yaml",
                                        "error: the server doesn't have a resource type"])[0].split("\n"))
    scan.finish()
    assert failing_segment(scan).command == "kubectl apply -f web.yaml"


def test_a_minitest_failure_reads_through_its_message_and_is_named_by_its_test() -> None:
    """minitest prints ``1) Failure:`` above every failure (real ruby 3 output): the block runs
    through the test's name and Expected/Actual, and the signature is the test's name, so two
    failing tests are two clusters, not one ``<n>) Failure:``."""
    def run(test: str) -> str:
        return job("ruby test_calc.rb", ["# Running:", "", "F", "", "Finished in 0.001124s.", "", "  1) Failure:",
                                         f"TestCalc#{test} [test_calc.rb:4]:", "Expected: 6", "  Actual: 5", "",
                                         "1 runs, 1 assertions, 1 failures, 0 errors, 0 skips"])[0]
    answer = read_cause(run("test_sum"))
    assert answer.error is not None and answer.error.kind == "minitest"
    assert answer.error.end - answer.error.line == 3 and answer.error.text.endswith("Actual: 5")
    assert answer.signature == "TestCalc#test_sum [test_calc.rb:<n>]:"
    assert read_cause(run("test_avg")).signature != answer.signature


def test_a_failed_rust_tests_block_reads_its_panic_and_stops_at_the_backtrace() -> None:
    """cargo test (rust 1.8x) prints a blank line between ``---- t stdout ----`` and the panic: the
    block reads through the panic's message, not the backtrace (RUST_BACKTRACE=1) under it."""
    text, first = job("cargo test", ["test tests::no_port ... FAILED", "", "failures:", "",
                                     "---- tests::no_port stdout ----", "",
                                     "thread 'tests::no_port' (22819) panicked at src/lib.rs:1:51:",
                                     "called `Option::unwrap()` on a `None` value", "stack backtrace:",
                                     "   0: __rustc::rust_begin_unwind", "", "failures:", "    tests::no_port"])
    answer = read_cause(text)
    assert answer.error is not None and (answer.error.line, answer.error.end) == (first + 4, first + 7)
    assert answer.error.text.endswith("called `Option::unwrap()` on a `None` value")


def test_a_failed_doctests_block_reads_through_its_stderr_to_the_panic() -> None:
    """A doctest's section says ``Test executable failed``, then, after blank lines, ``stderr:``
    and the panic: the block reads through the panic's message (it ended at the first blank line,
    before the assertion a person reads)."""
    text, first = job("cargo test --doc", ["test src/lib.rs - slug (line 5) ... FAILED", "", "failures:", "",
                                           "---- src/lib.rs - slug (line 5) stdout ----",
                                           "Test executable failed (exit status: 101).", "", "stderr:", "",
                                           "thread 'main' (30021) panicked at src/lib.rs:6:1:",
                                           "assertion `left == right` failed", '  left: "rust-&-go"',
                                           ' right: "rust-go"', "stack backtrace:", "   0: rust_begin_unwind", "",
                                           "failures:", "    src/lib.rs - slug (line 5)"])
    answer = read_cause(text)
    assert answer.error is not None and (answer.error.line, answer.error.end) == (first + 4, first + 12)
    assert answer.error.text.endswith(' right: "rust-go"')


def test_a_chained_traceback_is_read_whole_and_named_by_its_root_cause() -> None:
    """``raise … from exc``: Python prints the cause's traceback, ``The above exception was the
    direct cause …`` and the raised one's; the block runs through the last exception line (it
    ended at the first), and its signature is the root cause. A second traceback that is not
    chained is another block."""
    text, first = job("python manage.py migrate", [
        "Traceback (most recent call last):", '  File "runner.py", line 20, in apply_one', "    db.execute(sql)",
        "sqlite3.OperationalError: no such table: orderz", "",
        "The above exception was the direct cause of the following exception:", "",
        "Traceback (most recent call last):", '  File "manage.py", line 9, in <module>', "    runner.apply_all(db)",
        "migrations.runner.MigrationError: migration 0003_orders_total failed", "",
        "Traceback (most recent call last):", '  File "cleanup.py", line 2, in <module>', "    boom()",
        "NameError: name 'boom' is not defined"])
    answer = read_cause(text)
    assert answer.error is not None and (answer.error.line, answer.error.end) == (first, first + 10)
    assert "no such table" in answer.signature


def test_a_jvm_trace_reads_through_its_causes() -> None:
    """``Caused by:`` stands at the trace's own indent, under the frames: the block goes on through
    the cause and its frames (it ended before the cause, the line that says what was missing)."""
    text, first = job("java -jar app.jar", [
        'Exception in thread "main" java.lang.IllegalStateException: cannot read configuration conf/app.properties',
        "\tat com.acme.app.Main.loadConfig(Main.java:17)", "\tat com.acme.app.Main.main(Main.java:30)",
        "Caused by: java.nio.file.NoSuchFileException: conf/app.properties",
        "\tat java.base/sun.nio.fs.UnixException.translateToIOException(UnixException.java:92)", "\t... 1 more",
        "make: *** [Makefile:4: run] Error 1"])
    answer = read_cause(text)
    assert answer.error is not None and (answer.error.line, answer.error.end) == (first, first + 5)


def test_a_rustc_error_reads_its_quoted_source_lines() -> None:
    """rustc quotes the source with its line numbers in the gutter (``37 |  let last = …``, not
    indented deeper than the error): the block reads them and their labels (it ended at the first)."""
    text, first = job("cargo build", [
        "error[E0502]: cannot borrow `*self` as mutable because it is also borrowed as immutable",
        "  --> src/lib.rs:38:9", "   |", "37 |         let last = self.entries.last();",
        "   |                    ------------ immutable borrow occurs here", "38 |         self.post(from, -cents);",
        "   |         ^^^^^^^^^^^^^^^^^^^^^^^ mutable borrow occurs here", "",
        "error: could not compile `ledger` (lib) due to 1 previous error"])
    answer = read_cause(text)
    assert answer.error is not None and (answer.error.line, answer.error.end) == (first, first + 6)


def test_a_mocha_failure_is_named_by_its_suite_and_its_test() -> None:
    """mocha names a failure on two lines (``1) cart`` then ``sums items:``): the signature holds
    both, so two failing tests of one suite are two clusters; jasmine's ``Message:`` label is not a name."""
    def mocha(test: str) -> str:
        return job("npx mocha", ["  0 passing (76ms)", "  2 failing", "", "  1) cart (mocha)", f"       {test}:", "",
                                 "      AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:",
                                 "", "4 !== 5", ""])[0]
    sums, empty = read_cause(mocha("sums items")).signature, read_cause(mocha("handles missing qty")).signature
    assert sums == "<n>) cart (mocha) sums items:" and empty != sums
    jasmine = job("npx jasmine", ["Failures:", "1) dates formats an hour", "  Message:",
                                  "    Expected '9:00' to equal '09:00'.", "  Stack:", "        at <Jasmine>"])[0]
    assert read_cause(jasmine).signature == "<n>) dates formats an hour"


def test_mavens_failed_goal_block_ends_before_its_advice() -> None:
    """Maven follows ``[ERROR] Failed to execute goal …`` with a bare ``[ERROR]`` and its stock advice
    (``re-run Maven using the -X switch``): the block is the goal's message alone."""
    text, first = job("mvn -B test", [
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-resources-plugin:2.6:resources on project "
        "cart: Plugin could not be resolved: Unknown host repo.maven.apache.org -> [Help 1]",
        "[ERROR] ", "[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.",
        "[ERROR] Re-run Maven using the -X switch to enable full debug logging."])
    answer = read_cause(text)
    assert answer.error is not None and (answer.error.line, answer.error.end) == (first, first)


def test_a_long_traceback_still_reads_through_its_exception_line() -> None:
    """pytest ``--tb=native`` prints 70-odd frames of pytest and pluggy above the test's own: the
    block still ends at the exception line, which names it (it was 'Traceback (most recent call
    last):', one signature for every native traceback)."""
    frames = [line for number in range(120) for line in (f'  File "/venv/pluggy/_hooks.py", line {number}, in call',
                                                          "    return self._hookexec(")]
    text, first = job("pytest --tb=native", ["_____ test_rounding _____", "Traceback (most recent call last):",
                                             *frames, "AssertionError: assert 1.0 == 1.05", "_____ test_keyerror _____"])
    answer = read_cause(text)
    assert answer.error is not None and (answer.error.line, answer.error.end) == (first + 1, first + 242)
    assert answer.signature == "AssertionError: assert <n> == <n>"


def test_a_bare_error_line_of_git_is_not_called_rust() -> None:
    """`error: failed to push some refs` was kind `rust`: only rustc's coded errors (`error[E0308]`) say
    which tool spoke; a bare `error:` line is git's, the C driver's or npm's as often."""
    text, first = job("git push origin HEAD:master", [
        "To ../remote.git", " ! [rejected]        HEAD -> master (fetch first)",
        "error: failed to push some refs to '../remote.git'"])
    answer = read_cause(text)
    assert answer.error is not None and answer.error.kind != "rust"
    text, first = job("cargo build", ["   Compiling app v0.1.0", "error[E0308]: mismatched types"])
    answer = read_cause(text)
    assert answer.error is not None and (answer.error.line, answer.error.kind) == (first + 1, "rust")
