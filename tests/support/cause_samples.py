"""Samples of real tool output inside a GitLab job, one per shape family, shared by the cause
finder's tests (shapes, prefilter)."""

from __future__ import annotations

HEAD = ["Running with gitlab-runner 17.2.0 (6428c288)", "  on docker-1 abc123, system ID: s_1",
        "section_start:1700000000:step_script\r\x1b[0K\x1b[0K\x1b[36;1mExecuting \"step_script\" stage\x1b[0;m"]
TAIL = ["section_end:1700000100:step_script\r\x1b[0K", "\x1b[31;1mERROR: Job failed: exit code 1\x1b[0;m"]

# (name, command, output lines, 0-based offset of the expected first line in the output, kind)
SAMPLES: list[tuple[str, str, list[str], int, str]] = [
    ("pytest assertion", "pytest -q", [
        "..F.", "=================================== FAILURES ===================================",
        "___________________________________ test_add ___________________________________",
        "    def test_add():", ">       assert add(2, 2) == 5", "E       assert 4 == 5",
        "E        +  where 4 = add(2, 2)", "", "tests/test_math.py:4: AssertionError",
        "FAILED tests/test_math.py::test_add - assert 4 == 5", "1 failed, 3 passed in 0.05s"], 5, "pytest"),
    ("python traceback", "python manage.py migrate", [
        "Operations to perform:", "Traceback (most recent call last):",
        '  File "manage.py", line 22, in <module>', "    main()",
        "ModuleNotFoundError: No module named 'yaml'"], 1, "traceback"),
    ("unittest", "python -m unittest", [
        "F.", "======================================================================",
        "FAIL: test_total (tests.test_cart.CartTest.test_total)",
        "----------------------------------------------------------------------",
        "Traceback (most recent call last):", "AssertionError: 3 != 4", "", "FAILED (failures=1)"], 2, "unittest"),
    ("surefire", "mvn -B test", [
        "[INFO] Running com.example.AppTest",
        "[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.03 s <<< FAILURE! -- in com.example.AppTest",
        "[ERROR] com.example.AppTest.total -- Time elapsed: 0.01 s <<< FAILURE!",
        "org.opentest4j.AssertionFailedError: expected: <4> but was: <3>", "", "[INFO] Results:",
        "[ERROR] Failures: ", "[ERROR]   AppTest.total:12 expected: <4> but was: <3>",
        "[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0", "[INFO] BUILD FAILURE"], 2, "junit"),
    ("gradle test", "./gradlew test", [
        "> Task :test FAILED", "", "AppTest > total() FAILED", "    org.opentest4j.AssertionFailedError at AppTest.java:12",
        "", "FAILURE: Build failed with an exception.", "", "* What went wrong:",
        "Execution failed for task ':test'.", "> There were failing tests. See the report at: file:///b/index.html"],
     2, "gradle"),
    ("javac via maven", "mvn -B compile", [
        "[INFO] Compiling 3 source files", "[ERROR] COMPILATION ERROR : ",
        "[ERROR] /builds/app/src/main/java/App.java:[7,9] cannot find symbol",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile"], 2, "compiler"),
    ("gcc", "make", [
        "cc -c src/sync.c -o sync.o", "src/sync.c: In function 'flush':",
        "src/sync.c:3:10: error: expected ';' before '}' token", "    3 |   return 0", "      |          ^",
        "make: *** [Makefile:4: sync.o] Error 1"], 2, "compiler"),
    ("ld", "make", ["cc main.o -o app", "/usr/bin/ld: main.o: in function `main':",
                    "main.c:(.text+0x5): undefined reference to `helper'",
                    "collect2: error: ld returned 1 exit status"], 1, "linker"),
    ("cmake", "cmake -S . -B build", [
        "-- The C compiler identification is GNU 12.2.0", "CMake Error at CMakeLists.txt:5 (find_package):",
        "  Could not find a package configuration file provided by \"Foo\"", "",
        "-- Configuring incomplete, errors occurred!"], 1, "cmake"),
    ("go test", "go test ./...", [
        "=== RUN   TestAdd", "    add_test.go:9: got 3 want 4", "--- FAIL: TestAdd (0.00s)", "FAIL",
        "FAIL\texample.com/calc\t0.002s"], 1, "go"),
    ("go panic", "go test ./...", ["panic: runtime error: index out of range [3] with length 3", "",
                                    "goroutine 7 [running]:", "FAIL\texample.com/calc\t0.01s"], 0, "go"),
    ("cargo build", "cargo build", [
        "   Compiling ledger v0.6.1", "error[E0308]: mismatched types", " --> src/lib.rs:4:5", "  |",
        "error: could not compile `ledger` (lib) due to 1 previous error"], 1, "rust"),
    ("cargo test", "cargo test", [
        "test tests::fee ... FAILED", "", "failures:", "", "---- tests::fee stdout ----",
        "thread 'tests::fee' panicked at src/lib.rs:20:9:", "assertion `left == right` failed", "",
        "test result: FAILED. 3 passed; 1 failed"], 4, "cargo"),
    ("jest", "npx jest --ci", [
        "FAIL test/cart.test.js", "  ● cart › totals the items", "",
        "    expect(received).toBe(expected) // Object.is equality", "", "    Expected: 4", "    Received: 3",
        "Tests:       1 failed, 5 passed, 6 total"], 1, "jest"),
    ("mocha", "npx mocha", [
        "  Queue", "    ✓ adds items", "    1) refuses items past its limit", "", "  1 passing (5ms)",
        "  1 failing", "", "  1) Queue", "       refuses items past its limit:", "     AssertionError: expected 3 to equal 2"],
     7, "test"),
    ("tap", "node --test", ["TAP version 13", "ok 1 - parses", "not ok 2 - csv keeps empty fields",
                            "  ---", "  duration_ms: 1.2", "  ..."], 2, "tap"),
    ("rspec", "bundle exec rspec", [
        "..F", "", "Failures:", "", "  1) Money#split keeps every cent",
        "     Failure/Error: expect(parts.sum).to eq(1000)", "", "Finished in 0.01 seconds",
        "3 examples, 1 failure", "", "rspec ./spec/money_spec.rb:24 # Money#split keeps every cent"], 4, "test"),
    ("exunit", "mix test", [
        "  1) test totals (CartTest)", "     test/cart_test.exs:5", "     Assertion with == failed",
        "", "Finished in 0.03 seconds", "1 test, 1 failure"], 0, "test"),
    ("dotnet", "dotnet test", [
        "  Failed Tests.CartTests.Total [12 ms]", "  Error Message:", "   Assert.Equal() Failure",
        "Failed!  - Failed:     1, Passed:     4"], 0, "dotnet"),
    ("phpunit", "vendor/bin/phpunit", [
        "There was 1 failure:", "", "1) CartTest::testTotal", "Failed asserting that 3 matches expected 4.", "",
        "FAILURES!", "Tests: 5, Assertions: 5, Failures: 1."], 2, "test"),
    ("npm install", "npm ci", [
        "npm error code ERESOLVE", "npm error ERESOLVE unable to resolve dependency tree",
        "npm error A complete log of this run can be found in: /root/.npm/_logs/x.log"], 0, "npm"),
    ("pip", "pip install -r requirements.txt", [
        "Collecting nosuchpkg==9.9", "ERROR: Could not find a version that satisfies the requirement nosuchpkg==9.9",
        "ERROR: No matching distribution found for nosuchpkg==9.9"], 1, "pip"),
    ("apt", "apt-get install -y libfoo", ["Reading package lists...", "E: Unable to locate package libfoo"], 1, "apt"),
    ("docker build", "docker build .", [
        "#5 [2/3] RUN make", "#5 0.412 make: *** No rule to make target 'all'.  Stop.",
        "#5 ERROR: process \"/bin/sh -c make\" did not complete successfully: exit code: 2"], 1, "make"),
    ("terraform", "terraform plan", [
        "╷", "│ Error: Reference to undeclared input variable", "│ ", "│   on main.tf line 3:", "╵"], 1, "terraform"),
    ("shell", "./deploy.sh", ["deploying", "./deploy.sh: line 4: kubectl: command not found"], 1, "shell"),
    ("eslint", "npx eslint .", ["/builds/app/src/cart.js", "  12:5  error  'x' is not defined  no-undef", "",
                                "✖ 1 problem (1 error, 0 warnings)"], 1, "eslint"),
    ("tsc", "npx tsc --noEmit", ["src/cart.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."],
     0, "tsc"),
    ("flake8", "flake8", ["src/cart.py:1:1: F401 'os' imported but unused"], 0, "lint"),
    ("shellcheck", "shellcheck deploy.sh", ["", "In deploy.sh line 3:", "echo $1", "     ^-- SC2086 (info): Double quote"],
     1, "shellcheck"),
    ("rubocop", "rubocop", ["lib/money.rb:24:13: C: Style/FormatStringToken: Prefer annotated tokens",
                            "1 file inspected, 1 offense detected"], 0, "rubocop"),
    ("xcodebuild", "xcodebuild test", [
        "Test Case '-[AppTests testTotal]' started.",
        "/src/AppTests.swift:12: error: -[AppTests testTotal] : XCTAssertEqual failed: (\"3\") is not equal to (\"4\")",
        "Test Case '-[AppTests testTotal]' failed (0.002 seconds).", "** TEST FAILED **"], 1, "compiler"),
    ("ghc", "cabal build", ["src/Lib.hs:5:9: error: [GHC-83865]", "    • Couldn't match expected type"], 0, "compiler"),
    ("rebar3", "rebar3 eunit", ["===> Compiling app", "  cart_tests: total_test...*failed*",
                                "in function cart_tests:'-total_test/0-fun-0-'/0"], 1, "erlang"),
    ("R CMD check", "R CMD check pkg", ["* checking tests ... ERROR", "  Running 'testthat.R'"], 0, "r"),
    ("prove", "prove -l t", ["t/cart.t .. 1/2 ", "#   Failed test 'total'", "#   at t/cart.t line 5.",
                             "Result: FAIL"], 1, "prove"),
    ("busted", "busted", ["1 success / 1 failure / 0 errors", "", "Failure → spec/cart_spec.lua @ 3",
                          "cart totals", "spec/cart_spec.lua:4: Expected objects to be the same."], 2, "busted"),
    ("rustfmt", "cargo fmt --check", ["Diff in /builds/app/src/lib.rs:15:", "-    let x=1;", "+    let x = 1;"],
     0, "lint"),
    ("curl", "curl -fsSO https://artifacts.example.com/a.tgz",
     ["curl: (6) Could not resolve host: artifacts.example.com"], 0, "shell"),
    ("JSON diagnostics", "terraform validate -json", ['{', '  "valid": false,', '  "diagnostics": [', '    {',
                                                      '      "severity": "error",',
                                                      '      "summary": "Reference to undeclared input variable",'],
     4, "json"),
    ("sbt", "sbt test", ["[info] compiling 3 Scala sources", "[error] /app/src/Cart.scala:12:5: not found: value totl",
                        "[error] (Compile / compileIncremental) Compilation failed"], 1, "compiler"),
    ("elixir compile", "mix compile", ["Compiling 2 files (.ex)",
                                       "** (CompileError) lib/cart.ex:12: undefined function totl/0"], 1, "exception"),
    ("julia", "julia --project -e 'using Pkg; Pkg.test()'", ["Test Summary: | Pass  Fail  Total",
                                                            "Test Failed at /app/test/runtests.jl:5",
                                                            "  Expression: total([1, 2]) == 4"], 1, "test"),
    ("dart", "dart compile exe bin/main.dart", ["bin/main.dart:3:5: Error: Undefined name 'totl'.", "    totl();"],
     0, "compiler"),
    ("timestamps before every line", "./run", ["2026-11-27 21:01:38,120 INFO loading", "2026-11-27 21:01:38,122 INFO start",
                                               "2026-11-27 21:01:39,004   1) cart totals",
                                               "2026-11-27 21:01:39,005      AssertionError: 3 != 4"], 2, "test"),
    ("msbuild", "dotnet restore", ["  Determining projects to restore...",
                                   "/src/App/App.csproj : error NU1101: Unable to find package Foo.Bar. No packages exist"],
     1, "msbuild"),
    ("scalatest", "sbt test", ["[info] CartSpec:", "[info] - should total the items *** FAILED ***",
                               "[info]   3 did not equal 4 (CartSpec.scala:12)"], 1, "scalatest"),
    ("flutter test", "flutter test", ["00:01 +3: loading /app/test/cart_test.dart", "00:02 +3 -1: cart totals [E]",
                                      "  Expected: <4>", "    Actual: <3>"], 1, "dart"),
    ("composer", "composer install", ["Loading composer repositories with package information",
                                      "Your requirements could not be resolved to an installable set of packages.",
                                      "", "  Problem 1"], 1, "composer"),
    ("bundler", "bundle install", ["Fetching gem metadata from https://rubygems.org/...",
                                   "Could not find gem 'rails (= 9.9)' in locally installed gems."], 1, "error"),
    ("timestamped log level", "./bin/upload", [
        "2026-11-27T21:01:38Z INFO  starting upload",
        "2026-11-27T21:01:39Z ERROR [req 7f3a] upload of build/a.tar.gz failed: 403 Forbidden"], 1, "log"),
    # Linkers, assertions, memory and thread checkers.
    ("ld multiple definition", "make", [
        "cc -o app a.o b.o", "/usr/bin/ld: b.o:(.bss+0x0): multiple definition of `counter'; a.o:(.bss+0x0): first defined here",
        "collect2: error: ld returned 1 exit status"], 1, "linker"),
    ("lld", "cmake --build build", ["[3/3] Linking CXX executable app", "ld.lld: error: undefined symbol: Config::load()",
                                    ">>> referenced by main.cpp:12", "clang++: error: linker command failed with exit code 1"],
     1, "linker"),
    ("glibc assert", "./run_checks", [
        "running 3 checks", "check_queue: tests/queue.c:41: check_pop: Assertion `q->len == 2' failed.",
        "./run_checks: line 4:   812 Aborted                 (core dumped) ./check_queue"], 1, "assert"),
    ("asan", "./build/test_parser", [
        "==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010 at pc 0x55d4 bp 0x7ffc sp 0x7ffc",
        "READ of size 4 at 0x602000000010 thread T0", "    #0 0x55d4 in parse src/parser.c:88",
        "SUMMARY: AddressSanitizer: heap-use-after-free src/parser.c:88 in parse"], 0, "memcheck"),
    ("valgrind leak", "valgrind --leak-check=full --error-exitcode=2 ./cache_test", [
        "==310== Memcheck, a memory error detector", "==310== ",
        "==310== 64 bytes in 1 blocks are definitely lost in loss record 1 of 1",
        "==310==    at 0x4848899: malloc (vg_replace_malloc.c:381)",
        "==310== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)"], 2, "memcheck"),
    ("tsan", "./build/pool_test", ["WARNING: ThreadSanitizer: data race (pid=9120)", "  Write of size 8 at 0x7b04 by thread T2:",
                                   "", "SUMMARY: ThreadSanitizer: data race pool.cc:31 in Pool::push"], 0, "race"),
    ("go race", "go test -race ./...", [
        "==================", "WARNING: DATA RACE", "Write at 0x00c0000a0 by goroutine 7:", "  main.(*Cache).Set()", "",
        "--- FAIL: TestCache (0.01s)", "    testing.go:1446: race detected during execution of test", "FAIL"], 1, "race"),
    # make's own errors, shells and GNU-style tools.
    ("makefile error", "make -C docs", [
        "make: Entering directory '/builds/acme/site/docs'", "Makefile:27: *** recipe commences before first target.  Stop.",
        "make: Leaving directory '/builds/acme/site/docs'"], 1, "make"),
    ("bash line error", "./ci/publish.sh", ["publishing 3 packages", "./ci/publish.sh: line 12: PUBLISH_KEY: parameter null",
                                            "cleanup: removed 3 temporary files"], 1, "shell"),
    ("killed job", "python train.py", [
        "epoch 1/10", "epoch 2/10", "/usr/bin/bash: line 1:   211 Killed                  python train.py",
        "uploading partial logs"], 2, "shell"),
    ("sed", "./ci/render.sh", ["rendering", "sed: -e expression #1, char 23: unterminated `s' command", "wrote config.env"],
     1, "shell"),
    ("rsync", "rsync -a dist/ web:/srv", [
        "sending incremental file list",
        'rsync: [sender] change_dir "/builds/acme/site/dist" failed: No such file or directory (2)',
        "rsync error: some files/attrs were not transferred (see previous errors) (code 23) at main.c(1338)"], 1, "shell"),
    ("perl die", "perl bin/import.pl data/users.csv", [
        "importing data/users.csv", "row 17: missing email at bin/import.pl line 42, <$in> line 17.", "imported 16 rows"],
     1, "perl"),
    ("escript", "escript bin/migrate", ["migrating 4 tables", "escript: exception error: undefined function migrate:run/1",
                                        "  in function  escript:run/2"], 1, "erlang"),
    ("json parse", "python -m json.tool package.json", [
        "Expecting property name enclosed in double quotes: line 12 column 1 (char 301)"], 0, "parse"),
    ("jq parse", "jq .version package.json", ["parse error: Expected separator between values at line 5, column 4"],
     0, "parse"),
    # Coverage gates and formatters in check mode.
    ("nyc", "npx nyc --check-coverage npm test", [
        "  12 passing (40ms)", "ERROR: Coverage for lines (71.2%) does not meet global threshold (85%)",
        "----------|---------|"], 1, "coverage"),
    ("jacoco", "mvn -B verify", [
        "[INFO] --- jacoco:0.8.12:check (check) @ billing ---",
        "[WARNING] Rule violated for bundle billing: lines covered ratio is 0.61, but expected minimum is 0.80",
        "[INFO] BUILD FAILURE"], 1, "coverage"),
    ("pytest-cov", "pytest --cov=app --cov-fail-under=80", [
        "TOTAL                          412    190    54%",
        "FAIL Required test coverage of 80% not reached. Total coverage: 53.88%",
        "============================== 48 passed in 3.10s =============================="], 1, "coverage"),
    ("ruff format", "ruff format --check .", [
        "Would reformat: src/app/views.py", "Would reformat: src/app/models.py",
        "2 files would be reformatted, 14 files already formatted"], 0, "lint"),
    ("black", "black --check .", ["would reformat /builds/acme/api/api/routes.py", "", "Oh no! 💥 💔 💥",
                                  "1 file would be reformatted, 22 files would be left unchanged."], 0, "lint"),
    ("prettier", "npx prettier --check .", [
        "Checking formatting...", "[\x1b[33mwarn\x1b[39m] web/src/App.tsx",
        "[\x1b[33mwarn\x1b[39m] Code style issues found in the above file. Run Prettier with --write to fix."], 1, "lint"),
    ("tox 4", "tox -e docs", [
        "docs: commands[0]> sphinx-build -W docs build",
        "docs: failed with sphinx-build is not allowed, use allowlist_externals to allow it",
        "  docs: FAIL code 1 (4.20 seconds)", "  evaluation failed :( (4.31 seconds)"], 1, "tox"),
    # Blocks without an error word, and checks that fail on a diff.
    ("pytest --tb=line", "pytest --tb=line", [
        "test_orders.py .F..F                                                     [100%]", "",
        "=================================== FAILURES ===================================",
        "/builds/acme/shop/test_orders.py:4: assert 1.0 == 1.05", "/builds/acme/shop/test_orders.py:9: KeyError: 'b'",
        "=========================== short test summary info ============================",
        "FAILED test_orders.py::test_rounding - assert 1.0 == 1.05"], 3, "pytest"),
    ("pytest strict xpass", "pytest -q", [
        "=================================== FAILURES ===================================",
        "______________________________ test_legacy_tokens ______________________________",
        "[XPASS(strict)] tokens are not migrated yet",
        "FAILED tests/test_auth.py::test_legacy_tokens", "1 failed, 12 passed in 0.40s"], 1, "pytest"),
    ("docker without daemon", "docker build -t app .", [
        'time="2026-11-27T21:01:39Z" level=error msg="Can\'t add file /builds/acme/app/x to tar: io: read/write on closed pipe"',
        "Cannot connect to the Docker daemon at tcp://docker:2375. Is the docker daemon running?"], 1, "docker"),
    ("tap bail out", "prove -r t", ["t/00-load.t .. ok", "Bailout called.  Further testing stopped:  no database",
                                    "FAILED--Further testing stopped: no database"], 1, "prove"),
    ("bandit", "bandit -r app", [
        "Test results:", ">> Issue: [B105:hardcoded_password_string] Possible hardcoded password: 'hunter2'",
        "   Severity: Low   Confidence: Medium", "   Location: app/settings.py:12:11", "", "Code scanned:"], 1, "lint"),
    ("ruby uncaught", "ruby bin/import", [
        "importing 3 files", "bin/import:14:in `block in <main>': undefined method `strip' for nil:NilClass (NoMethodError)",
        "\tfrom bin/import:12:in `each'", "imported 0 files"], 1, "exception"),
    ("git diff check", "git diff --exit-code", [
        "diff --git a/docs/api.md b/docs/api.md", "index 1a2b3c4..5d6e7f8 100644", "--- a/docs/api.md", "+++ b/docs/api.md",
        "@@ -3 +3 @@", "-GET /v1/users", "+GET /v2/users"], 0, "diff"),
    ("npm usage error", "npm ci", [
        "npm error code EUSAGE", "npm error", "npm error `npm ci` can only install packages when your package.json and "
        "package-lock.json are in sync.", "npm error Missing: left-pad@1.3.0 from lock file", "npm error",
        "npm error Clean install a project"], 0, "npm"),
    ("python logging default format", "python -m app.export", [
        "INFO:app.export:exporting 4 tables", "CRITICAL:app.export:S3_BUCKET is not set, nothing to export to",
        "INFO:app.export:done in 0.2s"], 1, "log"),
    ("make without a makefile", "make -C build", [
        "make: Entering directory '/builds/acme/app/build'", "make: *** No targets specified and no makefile found.  Stop.",
        "make: Leaving directory '/builds/acme/app/build'"], 1, "make"),
    ("javac -Werror", "javac -Xlint:all -Werror -d out src/App.java", [
        "src/App.java:12: warning: [rawtypes] found raw type: List", "        List names = new ArrayList<>();",
        "        ^", "error: warnings found and -Werror specified", "1 error", "1 warning"], 0, "warning"),
    ("pytest internal error", "pytest -q", [
        "INTERNALERROR> Traceback (most recent call last):",
        'INTERNALERROR>   File "/builds/acme/app/conftest.py", line 9, in pytest_configure',
        "INTERNALERROR>     config.cache.set(KEY, load())", "INTERNALERROR> KeyError: 'DB_URL'", "", "no tests ran in 0.02s"],
     0, "traceback"),
    ("diff -u", "diff -u expected/report.txt report.txt", [
        "--- expected/report.txt\t2026-11-27 21:01:38.000000000 +0000",
        "+++ report.txt\t2026-11-27 21:01:39.000000000 +0000", "@@ -1,2 +1,2 @@", "-total: 4", "+total: 5"], 0, "diff"),
    ("failure marks", "npx vitest run", [" ✓ src/cart.test.ts (3 tests) 4ms", " × src/tax.test.ts > rounds half up 3ms",
                                         "   → expected 0.3 to be 0.31", " Test Files  1 failed | 1 passed (2)"],
     1, "test"),
    ("unhandled rejection", "node poll.js", [
        "node:internal/process/promises:389", "      new UnhandledPromiseRejection(reason);", "      ^", "",
        "UnhandledPromiseRejection: This error originated either by throwing inside of an async function",
        "    at throwUnhandledRejectionsMode (node:internal/process/promises:389:7)", "", "Node.js v20.20.2"],
     4, "exception"),
    ("rollup", "npx rollup -c", ["\x1b[36msrc/main.js → dist/bundle.js...\x1b[39m",
                                 "\x1b[1m\x1b[31m[!] \x1b[1mRollupError: \"formatDate\" is not exported by \"src/dates.js\"\x1b[22m",
                                 "src/main.js (3:9)", "    at getRollupError (node_modules/rollup/dist/shared/parseAst.js:1:1)"],
     1, "error"),
    ("doctest", "python -m doctest README.md", [
        "**********************************************************************",
        'File "README.md", line 14, in README.md', "Failed example:", "    slug('Hello World!')", "Expected:",
        "    'hello-world'", "Got:", "    'hello-world-'", "**********************************************************************",
        "1 items had failures:", "   1 of   4 in README.md", "***Test Failed*** 1 failures."], 1, "doctest"),
    ("c++ terminate", "./build/server --check-config", [
        "reading /etc/server.toml", "terminate called after throwing an instance of 'toml::parse_error'",
        "  what():  Error while parsing table header: expected ']'",
        "./ci/check.sh: line 3:   412 Aborted                 (core dumped) ./build/server --check-config"],
     1, "exception"),
    ("logfmt", "./bin/sync", ['time=2026-11-27T21:01:39Z level=info msg="start"',
                              'time=2026-11-27T21:01:40Z level=error msg="bulk request rejected"'], 1, "log"),
    ("nim compiler", "nim c app.nim", [
        "/builds/acme/app/app.nim(9, 43) Error: undeclared identifier: 'parseInteger'",
        "candidates (edit distance, scope distance); see '--spellSuggest': ",
        " (4, 4): 'parseInt' [func declared in /usr/lib/nim/lib/pure/strutils.nim(1063, 6)]"], 0, "compiler"),
    ("nim unittest", "nim c -r test_app.nim", [
        "[Suite] inventory", "  [OK] parse an item",
        "    /builds/acme/app/test_app.nim(12, 19): Check failed: t[\"A-1\"] == 5", "    t[\"A-1\"] was 2",
        "  [FAILED] totals add up per sku",
        "Error: execution of an external program failed: '/builds/acme/app/test_app '"], 2, "test"),
    ("zig test", "zig test ring.zig", [
        "1/2 ring.test.push and sum...OK", "2/2 ring.test.oldest value is dropped when full...expected 15, found 13",
        "FAIL (TestExpectedEqual)", "/builds/acme/ring/ring.zig:44:5: 0x124ef55 in test.oldest value (ring.zig)",
        "1 passed; 0 skipped; 1 failed.", "error: the following test command failed with exit code 1:",
        "/root/.cache/zig/o/ea1c/test --seed=0x2d1"], 1, "test"),
    ("fortran runtime", "./grid", [
        "At line 12 of file grid.f90", "Fortran runtime error: Index '6' of dimension 1 of array 'a' above upper bound of 5",
        "", "Error termination. Backtrace:", "#0  0x7f10f44218c2 in ???", "\tat /builds/acme/grid/grid.f90:19",
        "make: *** [Makefile:8: run] Error 2"], 0, "crash"),
    ("r cmd check tests", "R CMD check --no-manual pkg_0.1.0.tar.gz", [
        "* checking tests ...", "  Running \u2018test-stats.R\u2019", " ERROR",
        "Running the tests in \u2018tests/test-stats.R\u2019 failed.", "Complete output:", "  > library(rstats)",
        "  Error: trimmed_mean(c(1, 2, 3)) == 2 is not TRUE", "  Execution halted", "* DONE", "",
        "Status: 1 ERROR, 1 WARNING", "See", "  \u2018/builds/acme/pkg.Rcheck/00check.log\u2019", "for details."],
     3, "r"),
    ("googletest", "make test", [
        "[ RUN      ] FormatCents.PadsCents", "test/money_test.cpp:11: Failure", "Expected equality of these values:",
        "  format_cents(1205)", "    Which is: \"12.5\"", "  \"12.05\"", "[  FAILED  ] FormatCents.PadsCents (0 ms)",
        "[==========] 5 tests from 2 test suites ran. (0 ms total)", "[  PASSED  ] 4 tests.",
        "[  FAILED  ] 1 test, listed below:", "[  FAILED  ] FormatCents.PadsCents", "", " 1 FAILED TEST",
        "make: *** [Makefile:7: test] Error 1"], 1, "test"),
    ("gradle 4 offline", "gradle --offline --console=plain compileJava", [
        ":compileJava FAILED", "", "FAILURE: Build failed with an exception.", "", "* What went wrong:",
        "Could not resolve all files for configuration ':compileClasspath'.",
        "> Could not resolve com.google.guava:guava:32.1.2-jre.", "", "* Try:",
        "Run with --stacktrace option to get the stack trace."], 4, "gradle"),
    ("crystal exception", "crystal run src/main.cr", [
        "hello-world", "Unhandled exception: Index out of bounds (IndexError)",
        "  from /usr/share/crystal/src/indexable.cr:75:24 in '[]'", "  from src/main.cr:6:17 in '__crystal_main'",
        "  from ???"], 1, "exception"),
    ("clojure execution error", "clojure -M -m cart.main", [
        "Execution error (ArithmeticException) at cart.main/-main (main.clj:7).", "Divide by zero", "",
        "Full report at:", "/tmp/clojure-9895352257779889756.edn"], 0, "exception"),
    ("kotlinc -Werror", "kotlinc -Werror Orders.kt -d orders.jar", [
        "Orders.kt:9:24: warning: variable 'price' is never used", "        val (sku, qty, price) = it.split(\",\")",
        "                       ^", "error: warnings found and -Werror specified"], 0, "warning"),
    ("cabal resolver", "cabal build", [
        "Resolving dependencies...", "cabal: Could not resolve dependencies:",
        "[__0] trying: shapes-0.1.0.0 (user goal)", "[__1] unknown package: containers-extra (dependency of shapes)",
        "[__1] fail (backjumping, conflict set: containers-extra, shapes)"], 1, "error"),
    ("zig panic", "zig run window.zig", [
        "window at 0: 9", "window at 2: 18", "thread 14920 panic: index out of bounds: index 6, len 6",
        "/builds/acme/ring/window.zig:7:24: 0x11e51f1 in average (window.zig)", "        total += values[i];",
        "bash: line 1: 14920 Aborted                 zig run window.zig"], 2, "panic"),
    ("r cmd check dependency", "R CMD check --no-manual pkg_0.1.0.tar.gz", [
        "* checking package dependencies ...Warning: unable to access index for repository https://cloud.example/src:",
        "  cannot open URL 'https://cloud.example/src/contrib/PACKAGES'", " ERROR",
        "Package required but not available: \u2018jsonlite\u2019", "", "* DONE", "", "Status: 1 ERROR"], 3, "r"),
]


def job(command: str, output: list[str]) -> tuple[str, int]:
    """The whole job log, and the 1-based line number of ``output[0]``."""
    lines = [*HEAD, f"\x1b[32;1m$ {command}\x1b[0;m", *output, *TAIL]
    return "\n".join(lines) + "\n", len(HEAD) + 2


def block_of(command: str, output: list[str]) -> tuple[int, int]:
    """The block the cause finder answers for ``output`` run as ``command`` in a job, as offsets
    into ``output`` (first and last line, inclusive)."""
    from labdeck.logtext.cause import read_cause

    text, first = job(command, output)
    answer = read_cause(text)
    assert answer.error is not None
    return answer.error.line - first, answer.error.end - first
