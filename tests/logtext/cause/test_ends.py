"""Where a block ends past its shape's own lines (ends.py): each sample is a tool's real output shape
inside a GitLab job; the block must end on the last line a person reads for that error."""

from __future__ import annotations

from tests.support.cause_samples import block_of as _block


def test_a_pytest_failure_reads_through_the_place_it_was_raised() -> None:
    output = ["    def test_median_even():", ">       assert median([4, 1, 3, 2]) == 2.5",
              "E       assert 3 == 2.5", "E        +  where 3 = median([4, 1, 3, 2])", "",
              "tests/test_core.py:20: AssertionError",
              "=========================== short test summary info ============================",
              "FAILED tests/test_core.py::test_median_even - assert 3 == 2.5"]
    assert _block("pytest -q", output) == (2, 5)


def test_a_missing_fixture_reads_through_the_available_fixtures_and_the_test_file() -> None:
    output = ["  def test_uk_quote(carrier_client):", "E       fixture 'carrier_client' not found",
              ">       available fixtures: cache, capfd, caplog, capsys, monkeypatch, tmp_path",
              ">       use 'pytest --fixtures [testpath]' for help on them.", "",
              "/builds/acme/app/tests/test_quotes.py:9",
              "=========================== short test summary info ============================"]
    assert _block("pytest -q", output) == (1, 5)


def test_pytest_e_lines_without_a_place_end_at_the_last_e_line() -> None:
    output = ["E       assert 3 == 2.5", "", "some other output", "tests/test_core.py:20: AssertionError"]
    assert _block("pytest -q", output) == (0, 0)


def test_a_compiler_error_reads_through_the_quoted_line_and_its_caret() -> None:
    output = ["Orders.kt:4:75: error: unresolved reference: unitCent",
              "fun Order.totalCents(): Long = lines.fold(0L) { acc, l -> acc + l.qty * l.unitCent }",
              "                                                                          ^",
              "Orders.kt:9:1: error: expecting a top level declaration"]
    assert _block("kotlinc Orders.kt", output) == (0, 2)


def test_erlc_quotes_the_line_behind_a_percent_gutter() -> None:
    output = ["erl/queue_srv.erl:6:5: syntax error before: ok", "%    6|     ok.", "%     |     ^", "",
              "erl/queue_srv.erl:2:2: function push/2 undefined"]
    assert _block("erlc erl/queue_srv.erl", output) == (0, 2)


def test_esbuild_quotes_the_place_and_the_code_after_a_blank_line() -> None:
    output = ["✘ [ERROR] Could not resolve \"./cart\"", "", "    src/index.js:2:26:",
              "      2 │ import { cartTotal } from './cart';", "        ╵                           ~~~~~~~~", "",
              "1 error"]
    assert _block("npx esbuild src/index.js --bundle", output) == (0, 4)


def test_the_next_error_with_its_own_snippet_is_not_read_as_this_ones() -> None:
    output = ["src/a.c:3:5: error: 'x' undeclared (first use in this function)",
              "src/a.c:9:1: error: expected ';' before '}' token", "    9 | }", "      | ^"]
    assert _block("gcc -c src/a.c", output)[1] == 0


def test_a_lua_error_reads_through_its_stack_traceback() -> None:
    output = ["lua: main.lua:4: attempt to index field 'database' (a nil value)", "stack traceback:",
              "\tmain.lua:4: in function 'connect'", "\tmain.lua:8: in main chunk", "\t[C]: in ?", "next step"]
    assert _block("lua main.lua", output) == (0, 4)


def test_a_php_fatal_error_reads_through_its_stack_trace_and_thrown_in_line() -> None:
    output = ['PHP Fatal error:  Uncaught Error: Class "App\\Mailer" not found in /app/app.php:9', "Stack trace:",
              "#0 {main}", "  thrown in /app/app.php on line 9", "done"]
    assert _block("php app.php", output) == (0, 3)


def test_an_ocaml_exception_reads_through_its_backtrace() -> None:
    output = ["Fatal error: exception Not_found",
              'Raised at Stdlib__List.assoc in file "list.ml", line 191, characters 10-25',
              'Called from Lookup in file "lookup.ml", line 5, characters 32-55', "exit 2"]
    assert _block("./lookup.exe", output) == (0, 2)


def test_a_sanitizer_report_reads_through_its_summary() -> None:
    output = ["==27364==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000015 at pc 0x7f28",
              "WRITE of size 6 at 0x602000000015 thread T0",
              "    #0 0x7f2897c602c9 in __interceptor_strcpy asan_interceptors.cpp:425",
              "    #1 0x557f13e7e242 in main src/tok.c:8", "",
              "0x602000000015 is located 0 bytes to the right of 5-byte region [0x602000000010,0x602000000015)",
              "allocated by thread T0 here:", "    #0 0x7f2897cb89cf in __interceptor_malloc asan_malloc_linux.cpp:69",
              "", "SUMMARY: AddressSanitizer: heap-buffer-overflow asan_interceptors.cpp:425 in __interceptor_strcpy",
              "Shadow bytes around the buggy address:", "  0x0c047fff7fb0: 00 00 00 00 00 00 00 00"]
    assert _block("./tok", output) == (0, 9)


def test_a_pip_conflict_reads_through_resolution_impossible() -> None:
    output = ["ERROR: Cannot install -r requirements.txt (line 1) and urllib3==1.20 because these package versions "
              "have conflicting dependencies.", "", "The conflict is caused by:", "    The user requested urllib3==1.20",
              "    requests 2.31.0 depends on urllib3<3 and >=1.21.1", "", "To fix this you could try to:",
              "1. loosen the range of package versions you've specified",
              "2. remove package versions to allow pip attempt to solve the dependency conflict", "",
              "ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/"]
    assert _block("pip install -r requirements.txt", output) == (0, 10)


def test_a_doctest_failure_reads_up_to_the_line_of_stars() -> None:
    output = ['File "/builds/acme/app/vat.py", line 5, in vat', "Failed example:", '    gross(100, "AT")', "Expected:",
              "    121.0", "Got:", "    120.0", "*" * 70, "1 items had failures:", "   1 of   2 in vat",
              "***Test Failed*** 1 failures."]
    assert _block("python -m doctest vat.py", output) == (0, 6)


def test_a_diff_reads_through_its_header() -> None:
    output = ["diff --git a/src/version.txt b/src/version.txt", "index 798b3cf..3a70c81 100644",
              "--- a/src/version.txt", "+++ b/src/version.txt", "@@ -1,2 +1,2 @@", '-version = "2.4.0"',
              '+version = "2.5.0"', ' channel = "stable"']
    assert _block("git diff --exit-code", output) == (0, 3)


def test_gofmt_diff_wrapped_in_plus_signs_reads_through_its_header() -> None:
    output = ["--- /dev/fd/63\t2026-11-29 15:33:04.633799726 +0000", "+++ /dev/fd/62\t2026-11-29 15:33:04.633799726 +0000",
              "@@ -0,0 +1,8 @@", "+diff main.go.orig main.go", "+--- main.go.orig", "++++ main.go",
              "+@@ -4,12 +4,14 @@", "+ import ("]
    assert _block("diff -u <(echo -n) <(gofmt -d .)", output) == (3, 5)


def test_go_test_verbose_reads_the_tests_log_lines_through_its_fail_line() -> None:
    output = ["=== RUN   TestCodesAreCaseInsensitive", "    store_test.go:21: Get(GoDev) error = not found, want nil",
              '    store_test.go:24: Get(GoDev) = "", want "https://go.dev"',
              "--- FAIL: TestCodesAreCaseInsensitive (0.00s)", "=== RUN   TestRejectsBadURL",
              "--- PASS: TestRejectsBadURL (0.00s)"]
    assert _block("go test -v ./...", output) == (1, 3)


def test_a_one_line_error_reads_through_the_deeper_lines_under_it() -> None:
    output = ["ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the "
              "package versions, please update the hashes.",
              "    tinyfmt==1.0 from file:///builds/acme/app/wheels/tinyfmt-1.0-py3-none-any.whl (from -r req.txt (line 2)):",
              "        Expected sha256 4f2a5c0e3d1b8a7c6e9f0d2b4a6c8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d",
              "             Got        c64c9df29fa61fa14b7ea760736bad4bc5c3930c95cb164f0bc4ff9a36ea2a39", "",
              "Collecting other"]
    assert _block("pip install --require-hashes -r req.txt", output) == (0, 3)


def test_the_frames_under_a_one_line_error_are_not_its_details() -> None:
    output = ["Error: ENOENT: no such file or directory, open 'config.json'", "    at Object.openSync (node:fs:573:18)",
              "    at readConfig (/app/index.js:3:15)", "", "Node.js v20.11.0"]
    assert _block("node index.js", output) == (0, 0)


def test_a_strict_xpass_reads_its_reason_under_the_section_header() -> None:
    output = ["________________________ test_launch_code_on_free_plan _________________________",
              "[XPASS(strict)] LAUNCH codes are not applied to free plans yet",
              "=========================== short test summary info ============================",
              "FAILED tests/test_plans.py::test_launch_code_on_free_plan - [XPASS(strict)] LAUNCH codes are not applied"]
    assert _block("pytest -q", output) == (0, 1)


def test_a_robot_failure_reads_its_message_up_to_the_rule() -> None:
    output = ["Division Works                                                        | FAIL |", "3.0 != 3.5",
              "------------------------------------------------------------------------------",
              "Division By Zero Is Reported                                          | PASS |"]
    assert _block("robot tests/", output) == (0, 1)


def test_a_behave_step_reads_its_assertion_message() -> None:
    output = ['    Then she sees the error "Invalid password" ... failed in 0.000s',
              "ASSERT FAILED: expected 'Invalid password', got 'Invalid e-mail or password'", "",
              "  Scenario: Locked account"]
    assert _block("behave", output) == (0, 1)


def test_a_plain_terraform_diagnostic_reads_its_place_and_detail_up_to_the_next_one() -> None:
    output = ["Error: Unclosed configuration block", "", "  on main.tf line 15, in locals:", "  15: locals {", "",
              "There is no closing brace for this block before the end of the file. This may",
              "be caused by incorrect brace nesting elsewhere in this file.", "", 'Error: Unexpected "module" block']
    assert _block("terraform validate -no-color", output) == (0, 6)


def test_a_plain_terraform_diagnostic_ends_before_the_pipelines_own_lines() -> None:
    output = ["Error: Invalid value for variable", "", "  on main.tf line 5:", '   5: variable "environment" {', "",
              "environment must be staging or prod.", "[Pipeline] }", "[Pipeline] // stage"]
    assert _block("terraform plan -no-color", output) == (0, 5)


def test_an_error_logged_before_a_test_runners_report_is_not_a_diagnostic() -> None:
    output = ["Error: legacy coupon table missing, falling back to defaults", "",
              "  ✓ test/coupon.test.js (1 test) 9ms", "", " Test Files  1 passed (1)"]
    assert _block("npx vitest run", output) == (0, 0)


def test_mypy_pretty_reads_its_wrapped_message_the_code_and_the_caret() -> None:
    output = ["src/shop/cart.py:15: error: Incompatible types in assignment (expression has",
              'type "str", variable has type "int")  [assignment]', '            total: int = "0"',
              "                         ^~~", "src/shop/cart.py:38: error: Name \"rate\" is not defined  [name-defined]",
              "        return rate", "               ^~~~"]
    assert _block("mypy --pretty src", output) == (0, 3)


def test_a_perl_use_that_failed_reads_through_begin_failed() -> None:
    output = ["Can't locate JSON/XS.pm in @INC (you may need to install the JSON::XS module) (@INC contains: /etc/perl) "
              "at report.pl line 4.", "BEGIN failed--compilation aborted at report.pl line 4.", "done"]
    assert _block("perl report.pl", output) == (0, 1)
