"""How far a block grows by its shape's own rule (grow.py): each sample is a tool's real output shape
inside a GitLab job; the block must end on the last line a person reads for that error."""

from __future__ import annotations

from tests.support.cause_samples import block_of as _block


def test_a_terraform_box_reads_through_its_closing_corner() -> None:
    output = ["╷", "│ Error: Reference to undeclared input variable", "│",
              '│   on main.tf line 23, in module "subnet":', '│   23:   name   = "${local.name}-${var.region}"', "│",
              '│ An input variable with the name "region" has not been declared.', "╵", "next"]
    assert _block("terraform plan", output) == (1, 7)


def test_a_rustc_error_reads_through_its_suggested_change() -> None:
    output = ["error: unneeded `return` statement", "  --> src/lib.rs:45:9", "   |", "45 |         return fee;",
              "   |         ^^^^^^^^^^", "   |", "help: remove `return`", "   |", "45 -         return fee;",
              "45 +         fee", "   |", "", "error: could not compile `ledger` (lib) due to 1 previous error"]
    assert _block("cargo clippy -- -D warnings", output) == (0, 10)


def test_a_fatal_gcc_error_reads_through_compilation_terminated() -> None:
    output = ["src/report.c:2:10: fatal error: build_info.h: No such file or directory",
              '    2 | #include "build_info.h"', "      |          ^~~~~~~~~~~~~~", "compilation terminated.",
              "make: *** [Makefile:10: report] Error 1"]
    assert _block("make", output) == (0, 3)


def test_pips_consecutive_error_lines_are_one_block() -> None:
    output = ["ERROR: Could not find a version that satisfies the requirement acme-sdk==3.4.1 (from versions: none)",
              "ERROR: No matching distribution found for acme-sdk==3.4.1", "Collecting more"]
    assert _block("pip install acme-sdk==3.4.1", output) == (0, 1)


def test_pytests_internal_error_reads_a_long_traceback_through_its_exception() -> None:
    frames = []
    for depth in range(30):
        frames += [f'INTERNALERROR>   File "/venv/lib/python3.11/site-packages/pluggy/_hooks{depth}.py", line 10, in f',
                   "INTERNALERROR>     return self._hookexec(name, methods, kwargs)"]
    output = ["INTERNALERROR> Traceback (most recent call last):", *frames,
              "INTERNALERROR> AttributeError: 'NoneType' object has no attribute 'args'", "", "no tests ran in 0.06s"]
    assert _block("pytest", output) == (0, len(frames) + 1)


def test_a_paragraph_ends_before_the_pipelines_own_lines() -> None:
    output = ["Error in library(data.table) : there is no package called ‘data.table’", "Execution halted",
              "[Pipeline] }", "[Pipeline] // stage", "[Pipeline] stage", "ERROR: script returned exit code 1"]
    assert _block("Rscript analysis.R", output) == (0, 1)


def test_a_paragraph_ends_before_the_failure_mark() -> None:
    output = ["Unhandled exception: Index out of bounds (IndexError)",
              "  from /usr/lib/crystal/lib/indexable.cr:73:20 in '[]'", "  from src/main.cr:6:16 in '__crystal_main'",
              "##[error]Process completed with exit code 1.", "Post job cleanup."]
    assert _block("crystal run src/main.cr", output) == (0, 2)


def test_a_clojure_syntax_error_reads_its_message_on_the_next_line() -> None:
    output = ["Syntax error compiling at (cart/core.clj:7:15).", "Unable to resolve symbol: line-totl in this context", "",
              "Full report at:", "/tmp/clojure-123.edn"]
    assert _block("clojure -M -m cart.core", output) == (0, 1)


def test_a_clojure_test_failure_reads_expected_and_actual() -> None:
    output = ["", "FAIL in (discounts) (core_test.clj:12)", "expected: (= 900 (c/apply-discount 1000 10))",
              "  actual: (not (= 900 0))", "", "Ran 2 tests containing 4 assertions.", "1 failures, 0 errors."]
    assert _block("clojure -X:test", output) == (1, 3)
