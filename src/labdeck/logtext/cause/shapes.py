"""Step 2: the shapes of error lines, one entry per tool, and how far each block reaches.

Each :class:`Shape` says what a line that opens a block looks like (matched against the cleaned
line, see :func:`labdeck.logtext.cause.segment.clean`), how sure it is (``tier``: 1 names the
cause itself, such as a compiler error, a failed test's message or an exception; 2 is a tool's
error of a generic form; 3 is a summary or a consequence, such as ``make: *** Error 1`` or
``Tests run: 5, Failures: 1``; 4 is a warning, read only when the build made warnings fatal) and
how the block grows (:data:`Grow`). Samples from real runs are
in ``tests/logtext/test_cause_shapes.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

Grow = Literal["single", "traceback", "indent", "para", "prefix", "rust", "box", "hash", "linker", "named", "section"]


@dataclass(frozen=True, slots=True)
class Shape:
    """One error shape: its ``kind``, the pattern that opens a block (``source``: its text, compiled
    when first used; or a compiled pattern), its tier and growth."""

    kind: str
    source: str | re.Pattern[str]
    tier: int
    grow: Grow = "single"
    anywhere: bool = False
    """True when the pattern may match anywhere in the line (searched, not matched at its start)."""
    needles: tuple[str, ...] = ()
    """For a shape matched anywhere: one of these is in every line it matches (a cheap test first)."""

    @property
    def pattern(self) -> re.Pattern[str]:
        """The compiled pattern (compiled at its first use: most shapes never meet a line that
        could open them, and importing the finder compiles nothing)."""
        return self.source if isinstance(self.source, re.Pattern) else _compiled(self.source)


@cache
def _compiled(source: str) -> re.Pattern[str]:
    return re.compile(source)


def _s(kind: str, pattern: str, tier: int, grow: Grow = "single") -> Shape:
    return Shape(kind, pattern, tier, grow)


def _a(kind: str, pattern: str, tier: int, grow: Grow = "single", *, needles: tuple[str, ...]) -> Shape:
    return Shape(kind, pattern, tier, grow, anywhere=True, needles=needles)


TEXT_TOOLS = (
    "sed", "g?awk", "mawk", "jq", "yq", "tar", "g?zip", "gunzip", "bzip2", "xz", "unzip", "zcat", "cp", "mv", "rm", "ln",
    "mkdir", "rmdir", "chmod", "chown", "touch", "tee", "cat", "ls", "du", "stat", "realpath", "readlink", "install",
    "e?grep", "find", "xargs", "sort", "cut", "diff", "cmp", "patch", "rsync", "scp", "ssh", "envsubst", "base64",
    r"sha\d+sum", "md5sum", "openssl", "gpg", "sudo", "timeout", "flock", "kill", "dd", "xmllint", "aws", "gsutil",
    "gcloud", "az", r"python\d?(?:\.\d+)?", "perl", "ruby", "node", "php", r"lua\d?(?:\.\d)?", "Rscript",
)
"""Command-line tools that report an error as ``tool: message`` (GNU style), for :data:`SHAPES` and
the prefilter."""
TEXT_TOOL = r"(?:" + "|".join(TEXT_TOOLS) + r")(?:\[\d+\])?: "

_EXCEPTION = r"(?:[A-Za-z_][\w$]*[.:]{1,2})*[A-Z]\w*(?:Error|Exception|Exit|Failure|Fault|Interrupt|Panic|Rejection)"

SHAPES: tuple[Shape, ...] = (
    # Python
    _s("traceback", r"\s*Traceback \(most recent call last\):", 1, "traceback"),
    # pytest's own crash: every line of the traceback starts with ``INTERNALERROR>``.
    _s("traceback", r"INTERNALERROR> Traceback \(most recent call last\):", 1, "prefix"),
    _s("pytest", r"E {2,}\S", 1, "prefix"),
    _s("unittest", r"(?:FAIL|ERROR): \w+ \([\w.]+\)", 1, "para"),
    # doctest names the failing example's place at the start of a line (a traceback indents it).
    _s("doctest", r"File \"[^\"]+\", line \d+, in [\w.]+$", 1),
    _s("doctest", r"\*\*\*Test Failed\*\*\* \d+ failures?\.", 3),
    _s("pytest", r"(?:FAILED|ERROR) \S+(?:::|\.py\b)", 3),
    # ``--tb=line``: one line per failure, ``path.py:LINE: what was raised``.
    _s("pytest", r"\S+\.py:\d+: (?:" + _EXCEPTION + r"\b|assert |Failed: ).*", 1),
    # A failure's section header: read when the failure has no ``E`` line (a strict XPASS).
    _s("pytest", r"_{3,} (?:ERROR at (?:setup|teardown) of |ERROR collecting )?\S+ _{3,}$", 2),
    _s("pytest", r"=+ .*\b(?:\d+ (?:failed|errors?))\b.* =+$", 3),
    _s("tox", r"\s*(?:ERROR: +)?\S+: (?:commands failed|FAIL code \d+)", 3),
    # tox's own word on an environment it could not run (``py39: failed with could not find python
    # interpreter …``, ``lint: failed with flake8 is not allowed …``) names the cause; tox goes on with
    # the next environment, whose failures come later.
    _s("tox", r"\S+: failed with .+", 1),
    # Coverage gates (coverage.py, pytest-cov, jest, nyc/istanbul, JaCoCo): the tests passed.
    _s("coverage", r"(?:ERROR: )?(?:Coverage failure: total of .+|Coverage for \w+ \([\d.]+%\) does not meet .+)"
       r"|FAIL Required test coverage of .+|Jest: \".+\" coverage threshold for \w+ \([\d.]+%\) not met.*"
       r"|(?:\[(?:ERROR|WARNING)\] )?Rule violated for .+", 1),
    # JVM
    _s("junit", r"(?:\[(?:ERROR|INFO)\] )?Tests run: \d+, Failures: \d+, Errors: \d+.*", 3),
    _a("junit", r"<<< (?:FAILURE|ERROR)!", 1, "para", needles=("<<< ",)),
    _a("junit", r"expected:? ?<[^>]*> but (?:was|found):? ?<", 1, needles=(" but ",)),
    _s("junit", r"\[ERROR\] {2,}\w[\w.$]*[:.]\w+:\d+ .+", 3),
    _s("gradle", r"\S.* > .+ FAILED$", 1, "indent"),
    _s("gradle", r"\* What went wrong:", 2, "para"),
    _s("gradle", r"(?:> Task \S+|:[\w:-]+) FAILED$", 3),
    _s("gradle", r"(?:FAILURE: Build failed|BUILD FAILED)\b.*", 3),
    _s("compiler", r"(?:\[ERROR\] )?\S+\.(?:java|kt|scala|groovy):\[\d+,\d+\] .+", 1),
    _s("compiler", r"e: (?:file://)?\S+\.kts?(?::\d+:\d+|: \(\d+, \d+\)):? .+", 1),
    _s("maven", r"\[ERROR\] Failed to execute goal .+", 2, "prefix"),
    _s("exception", r"(?:Exception in thread \"[^\"]*\" |Caused by: )" + _EXCEPTION + r"\b.*", 1, "indent"),
    # Compilers and linkers: the linker's own lines (``/usr/bin/ld: x.o: in function …``) name the
    # cause; ``collect2: error: ld returned 1`` only says that the link failed.
    _s("linker", r"(?:collect2|clang(?:\+\+)?|\S*ld(?:\.\w+)?)(?:\.exe)?: error: (?:ld returned \d+ exit status"
       r"|linker command failed\b).*", 3),
    # ``ld: x.o: in function `main':`` is followed by what went wrong in it (``undefined reference
    # to `helper'``, with ``file:line`` or ``file:(.text+0xa)``): the block reads through them.
    _s("linker", r"(?:\S*/)?(?:ld|ld\.bfd|ld\.gold|ld\.lld|ld64(?:\.lld)?|lld|mold)(?:\.exe)?: (?!warning:).+", 1,
       "linker"),
    # A C++ exception nobody caught: libstdc++ says so, then ``  what():  message``.
    _s("exception", r"terminate called (?:after throwing an instance of .+|without an active exception|recursively)",
       1, "indent"),
    _a("assert", r"Assertion [`'\"].*['\"] failed\.?$|Assertion failed: .+, (?:function .+, )?file .+, line \d+", 1,
       needles=("Assertion",)),
    # Memory and thread checkers (valgrind, the sanitizers, go test -race).
    _s("memcheck", r"==\d+== ?(?:ERROR: \w+Sanitizer\b.*|Invalid (?:read|write|free)\b.*|Conditional jump .*"
       r"|Use of uninitialised .*|Mismatched free.*|Syscall param .*|Source and destination overlap.*"
       r"|Process terminating with .*|[\d,]+ (?:\([\d,]+ direct, [\d,]+ indirect\) )?bytes in [\d,]+ blocks are "
       r"definitely lost.*)", 1, "prefix"),
    _s("race", r"WARNING: (?:DATA RACE|ThreadSanitizer: .+)", 1, "para"),
    _s("tsc", r"\S+\(\d+,\d+\): error TS\d+:.*|\S+:\d+:\d+ - error TS\d+:.*", 1),
    # pyright indents each diagnostic under its file's name: ``  /src/x.py:11:12 - error: message (rule)``.
    _s("compiler", r"\s+\S+:\d+:\d+ - error: .+", 1),
    _s("compiler", r"\S.*?(?::\d+(?::\d+)?:?|\(\d+(?:, ?\d+)?\):?) +(?:- +)?(?:fatal |\w+ )?(?:error|Error|ERROR)\b.*", 1,
       "rust"),
    _s("compiler", r"\[(?:error|ERROR|E)\]\s+\S+?:\d+(?::\d+)?:? .+", 1),
    _s("exception", r"\*\* \(\w+\) .+", 1, "indent"),
    _s("test", r"Test Failed at .+", 1, "indent"),
    _a("compiler", r"undefined reference to\b|Undefined symbols for architecture|\berror LNK\d+", 1,
       needles=("ndefined ", "LNK")),
    _s("compiler", r"\S+\.(?:go|hs|erl|ex|exs|swift|rb|py|c|cc|cpp|h|hpp|rs|ts|tsx|js|jsx|m|mm|zig|nim|d):\d+"
       r"(?::\d+)?: (?!warning|note|info)(?:\[\w+\] )?[a-z].*", 2, "rust"),
    # luacheck indents its findings under ``Checking src/x.lua`` (all warnings; any fails the run);
    # not a frame of Lua's stack traceback (``src/x.lua:5: in function 'f'``).
    _s("lint", r"\s*\S+\.lua:\d+(?::\d+)?: (?!warning|note|info|in (?:function|main chunk|upvalue|local|method|field|\?))"
       r"\S.*", 2),
    # -Werror: the warnings before are the cause (rank.py promotes them), this line only says so.
    _s("werror", r"(?:error|e): warnings found and -Werror specified|cc1\w*: all warnings being treated as errors"
       r"|build finished with problems, .*\(with warnings treated as errors\)\.?", 3),
    # Sphinx -W before 7.3 announces the fatal warning, then prints it.
    _s("werror", r"Warning, treated as error:$", 1, "para"),
    # javac, kotlinc and scalac warnings: tier 4, read only when a -Werror line makes them fatal.
    _s("warning", r"\S+\.(?:java|kts?|scala):\d+(?::\d+)?: warning: .+", 4, "rust"),
    # Sphinx's and docutils' warnings (``docs/index.rst:6: WARNING: …``, ``x.rst:3: (WARNING/2) …``).
    _s("warning", r"\S+:\d+: (?:WARNING: |\(WARNING/\d\) ).+", 4),
    _s("rust", r"error\[E\d{3,5}\]: .+", 1, "rust"),
    # A bare `error: …` is rustc's too, but also git's, the C driver's, clang's, npm's: its kind says
    # no more than it knows.
    _s("error", r"error: (?!could not compile|test failed|aborting due to|build failed|the following (?:test )?command\b).+",
       1, "rust"),
    # A test's captured output: the panic under it (rust 1.73+ puts a blank line between) is read.
    # Any test name: a doc test's has spaces (``src/lib.rs - slug (line 5)``), a progress line may say
    # ``- should panic``; the progress line is libtest's, not karma's ``… FAILED``.
    _s("cargo", r"---- \S.* stdout ----$", 1, "section"),
    _s("cargo", r"test \S.* \.\.\. FAILED$", 3),
    _s("rust", r"thread '.*'(?: \(\d+\))? panicked at .*", 1, "section"),
    _s("rust", r"test result: FAILED\b.*|error: (?:could not compile|test failed|aborting due to"
       r"|the following (?:test )?command\b).*", 3),
    _s("cmake", r"CMake Error\b.*", 1, "indent"),
    _s("ctest", r"\s*\d+/\d+ Test\s+#\d+: .*\*\*\*(?:Failed|Exception|Timeout).*", 1),
    _s("ctest", r"The following tests FAILED:|Errors while running CTest", 3),
    _s("make", r"g?make(?:\[\d+\])?: \*\*\* No rule to make target.*", 1),
    _s("make", r"(?:\S+/)?(?:GNUmakefile|[Mm]akefile[\w.-]*|\S+\.mk):\d+: \*\*\* .+", 1),
    # make's own fatal error ends in ``Stop.``; ``make: *** [target] Error 1`` is a consequence.
    _s("make", r"g?make(?:\[\d+\])?: \*\*\* (?!\[).+\bStop\.$", 1),
    _s("make", r"(?:g?make|ninja)(?:\[\d+\])?: (?:\*\*\*|build stopped).*", 3),
    _s("ninja", r"FAILED: .+", 2),
    # Go
    _s("go", r"\s+\S+_test\.go:\d+: .+", 1, "indent"),
    _s("go", r"\s*--- FAIL: .+", 1, "indent"),
    _s("go", r"panic: .+", 1, "para"),
    # Zig's runtime safety checks: ``thread 14920 panic: index out of bounds: index 6, len 6``.
    _s("panic", r"thread \d+ panic: .+", 1, "para"),
    _s("go", r"FAIL\s+\S+\s+[\d.]+s|FAIL$", 3),
    # JavaScript
    _s("jest", r"\s*● .+", 1, "indent"),
    _s("tap", r"\s*not ok \d+.*", 1, "indent"),
    # twine check: ``Checking dist/x.whl: FAILED``, then its ERROR/WARNING lines (not karma's).
    _s("lint", r"Checking \S+: FAILED$", 1, "para"),
    _a("karma", r"\S FAILED$", 1, "indent", needles=(" FAILED",)),
    _s("mocha", r"\s*\d+ failing$", 3),
    # minitest: ``  1) Failure:`` then, unindented, the test's name and what failed: the name is the
    # signature (every failure's first line is the same).
    _s("minitest", r"\s*\d+\) (?:Failure|Error):$", 1, "named"),
    _s("test", r"\s*\d+\) \S.*", 1, "indent"),
    _s("eslint", r"\s+\d+:\d+\s+error\s+.+", 1),
    _s("npm", r"npm (?:ERR!|error) .*", 2, "prefix"),
    _a("pnpm", r"ERR_PNPM_\w+", 2, needles=("ERR_PNPM_",)),
    _s("yarn", r"error (?!Command failed with exit code).+|YN\d{4}: .*(?:error|Error|failed).*", 2),
    _s("yarn", r"error Command failed with exit code \d+.*", 3),
    # clojure.test: ``FAIL in (test-name) (file.clj:12)``, then ``expected: …`` and ``  actual: …``.
    _s("test", r"(?:FAIL|ERROR) in \(\S+\) \(\S+:\d+\)$", 1, "para"),
    _s("jest", r"FAIL (?!\()\S+", 3),
    # Ruby, Elixir, PHP, .NET
    _s("rspec", r"Failure/Error: .+", 1, "indent"),
    _s("rspec", r"rspec \./\S+:\d+.*|\d+ examples?, [1-9]\d* failures?.*", 3),
    _s("minitest", r"\d+ runs, \d+ assertions, \d+ failures, \d+ errors.*", 3),
    _s("rubocop", r"\S+\.rb:\d+:\d+: [CRWEF]: .+", 1),
    _s("phpunit", r"There (?:was|were) \d+ (?:failures?|errors?):", 2),
    _s("phpunit", r"PHP (?:Fatal|Parse) error: .+|(?:Fatal|Parse) error: .+ in \S+ on line \d+", 1),
    _s("phpunit", r"FAILURES!$|ERRORS!$", 3),
    _s("dotnet", r"\s*(?:\[xUnit\.net [\d:.]+\]\s+)?\S+ \[FAIL\]$", 1, "indent"),
    _s("dotnet", r"\s*Failed \S+ \[[\d.<> ]+m?s\]$|\s*X \S+ \[[\d.]+m?s\]$", 1, "indent"),
    _s("dotnet", r"Failed!\s+- Failed:.*|Test Run Failed\.", 3),
    # Packages, containers, infrastructure tools
    # pip says one failure in consecutive ``ERROR:`` lines (no version, then no matching distribution).
    _s("pip", r"ERROR: (?:Could not find a version|No matching distribution|Cannot install|ResolutionImpossible"
       r"|Failed building wheel|Could not build wheels).*", 1, "prefix"),
    _a("pip", r"\b(?:ResolutionImpossible|PackagesNotFoundError|UnsatisfiableError|LibMambaUnsatisfiableError)\b",
       1, "indent", needles=("Impossible", "NotFound", "nsatisfiable")),
    _s("apt", r"E: .+", 1),
    _s("docker", r"Cannot connect to the Docker daemon\b.*|error during connect: .+", 1),
    _s("docker", r"(?:ERROR: |error: )?failed to solve: .+|(?:#\d+ )?ERROR: process \".*\" did not complete "
       r"successfully.*", 2),
    _a("docker", r"returned a non-zero code: \d+", 2, needles=("non-zero",)),
    _s("terraform", r"│ Error: .+", 1, "box"),
    _s("kubectl", r"Error from server\b.+", 1),
    _s("helm", r"Error: (?:UPGRADE|INSTALLATION) FAILED: .+", 1),
    # Shells: bash names the script and line (``deploy.sh: line 9: syntax error …``, ``bash: line 1:
    # 123 Killed …``), dash the line alone; GNU-style tools their own name.
    # A job-status line (``bash: line 1: 123 Killed  cmd``) says how a process died: what it printed
    # before (``FATAL ERROR: … heap out of memory``) says why, when it printed anything.
    _s("shell", r"\S+: line \d+: +\d+ (?:Killed|Aborted|Terminated|Hangup|Quit|Floating point exception|Bus error|"
       r"Segmentation fault|Illegal instruction|Trace/breakpoint trap)\b.*", 2),
    _s("shell", r"(?:\S+: line \d+|(?:\S+\.(?:sh|bash)|sh|dash|/bin/sh): \d+): (?!warning:).+", 1),
    _s("shell", TEXT_TOOL + r"(?!warning\b|WARNING\b|Removing leading|Removing trailing).+", 2),
    _s("shell", r"Killed$", 2),
    _a("shell", r": (?:command not found|not found|unbound variable|bad substitution|parameter not set)$", 1,
       needles=("not found", "unbound", "bad substitution", "not set")),
    _a("shell", r"No such file or directory|Permission denied|Segmentation fault|core dumped|"
       r"Bus error|Illegal instruction", 2,
       needles=("No such", "denied", "Segmentation", "dumped", "Bus error", "Illegal")),
    # Linters
    _s("lint", r"\S+\.py:\d+:\d+: [A-Z]{1,3}\d{2,4}\b.*", 1),
    _s("lint", r">> Issue: \[\w+:?\w*\] .+", 1, "indent"),
    _s("lint", r"[A-Z]{1,4}\d{3,4} (?:\[\*\] )?\S.*", 1, "rust"),
    _s("shellcheck", r"In \S+ line \d+:$", 1, "para"),
    _s("lint", r"✖ \d+ problems?.*|Found \d+ errors?\b.*|\d+ files? inspected, \d+ offenses?.*"
       r"|Code style issues (?:were )?found\b.*|\d+ files? would be reformatted.*", 3),
    # Formatters in check mode name each file they would change (black, ruff format, prettier).
    _s("lint", r"(?:[Ww]ould reformat:?|[Ww]ould have reformatted) \S.*|\[warn\] (?!Code style)[\w./@+-]+\.\w+$", 1),
    # Swift, Haskell, Erlang, R, Perl, Lua
    _s("xcodebuild", r"Test Case '.*' failed.*", 1),
    # Uncaught exceptions that runtimes announce in words: Crystal and mono (``Unhandled exception: …``),
    # .NET (``Unhandled exception. System.X: …``), Clojure 1.10+ (``Execution error (X) at ns/fn (f.clj:7).``).
    _s("exception", r"Unhandled [Ee]xception(?:[:.].*)?$|(?:Execution|Syntax) error (?:\(\w+\) )?"
       r"(?:at|compiling at|reading source at|macroexpanding at) .+", 1,
       "para"),
    # GoogleTest's and Catch2's assertion header: ``test/x.cpp:11: Failure`` (MSVC: ``x.cpp(11): error:``),
    # ``test/x.cpp:11: FAILED:``; the expected and actual values follow.
    _s("test", r"\S+?(?::\d+:|\(\d+\):) (?:Failure|FAILED:)$", 1, "para"),
    # A failed check's own line: Nim's unittest (``file.nim(12, 19): Check failed: …``), glog/absl
    # ``CHECK`` (``F… file.cc:12] Check failed: x == y``); then the test runners' per-test marks
    # (Nim ``[FAILED] name``, GoogleTest ``[  FAILED  ] Suite.Test (3 ms)``) and zig's ``FAIL (Error)``.
    _a("test", r"\bCheck failed: .+", 1, needles=("Check failed",)),
    # zig test's progress line of a failing test carries its name and message
    # (``2/2 ring.test.drops oldest...expected 15, found 13``), then ``FAIL (TestExpectedEqual)``.
    _s("test", r"\d+/\d+ [\w.]+\.test\.\S.*?\.\.\.(?!OK$|SKIP$).+", 1),
    _s("test", r"\s*\[ +FAILED +\] (?!\d+ tests?,).+|\s*\[FAILED\] .+|.*\.\.\.FAIL \(\w+\)$|FAIL \(\w+\)$", 1),
    # Fortran's runtime checks (``At line 12 of file grid.f90`` then ``Fortran runtime error: …``) and
    # other runtimes that say ``runtime error:`` first.
    _s("crash", r"At line \d+ of file \S+.*|(?:Fortran )?[Rr]untime [Ee]rror: .+", 1, "para"),
    # A failure mark at the start of a line (mocha/ava/vitest reporters, link checkers, scripts).
    _s("test", r"\s*[✖✘✗❌] .+", 1),
    # ``×`` also heads pip's summary of a failed build step, which wraps the real error.
    _s("test", r"\s*× .+", 2),
    _s("xcodebuild", r"\*\* (?:BUILD|TEST|ARCHIVE) FAILED \*\*", 3),
    _s("erlang", r"===> (?:Compilation failed|Error|Failed|Uncaught error).*|\s*\w+: \S+\.\.\.\*failed\*", 1, "indent"),
    _s("erlang", r"%%% .*==> .+|\*\*error:.+|(?:escript: |\*\* )?exception (?:error|exit|throw): .+", 1),
    _s("r", r"\* checking .* \.\.\. ERROR$|── (?:Failure|Error) .*|Error in .+|Error: .*test.*failed.*"
       r"|Running (?:the tests in|examples in) .+ failed\.?$"
       r"|Packages? (?:required but not available|required and available but unsuitable versions?): .+", 1, "para"),
    _s("r", r"Execution halted$", 3),
    _s("prove", r"#\s+Failed test\b.*", 1, "hash"),
    _s("prove", r"Dubious, test returned .*", 2),
    _s("prove", r"Bailout called\..*|Bail out!.*", 1),
    _s("prove", r"Failed \d+/\d+ test (?:programs|scripts).*|Result: FAIL$", 3),
    _s("busted", r"(?:Failure|Error) → .+", 1, "para"),
    _a("robot", r"\| FAIL \|$", 1, "indent", needles=("| FAIL |",)),
    _a("behave", r"\.\.\. (?:failed|undefined) in [\d.]+s$", 1, "indent", needles=("... ",)),
    _s("behave", r"Failing scenarios:$", 3),
    _s("lint", r"Diff in \S+(?::\d+:| at line \d+:).*", 1, "para"),
    _s("shell", r"curl: \(\d+\) .+|wget: .*(?:failed|error|unable).*", 1),
    _s("json", r"\s*\"(?:severity|level)\": ?\"(?:error|fatal)\",?", 1),
    _a("msbuild", r" : (?:fatal )?error [A-Z]+\d+: ", 1, needles=(" : error ", " : fatal error "),),
    _a("scalatest", r"\*\*\* FAILED \*\*\*", 1, "indent", needles=("*** FAILED",)),
    _a("dart", r" \[E\]$", 1, "indent", needles=(" [E]",)),
    _s("composer", r"Your requirements could not be resolved.*|\s*Problem \d+$", 1, "indent"),
    # Ruby's uncaught exception: ``lib/x.rb:8:in `total': message (NoMethodError)``.
    _s("exception", r"\S+?:\d+:in [`'][^']*': .+ \((?:[A-Z]\w*::)*[A-Z]\w*\)$", 1, "indent"),
    # A check that fails on a diff (``git diff --exit-code``, ``terraform fmt -diff``): its first file.
    # gofmt -d and shfmt -d compare ``x.orig`` with ``x`` (``+``-prefixed when wrapped in ``diff -u
    # <(echo -n) <(gofmt -d .)``, whose own ``--- /dev/fd/63`` names no file).
    _s("diff", r"diff --git a/\S+ b/\S+|--- (?:a|old)/\S+.*|--- (?!/dev/fd/)\S+\t\d{4}-\d\d-\d\d[ T].*"
       r"|\+?diff \S+\.orig \S+$|\+?--- \S+\.orig$", 2),
    _s("perl", r"\S.* at (?:\S+\.(?:pl|pm|t|cgi|psgi|PL)|-e|\S*/[\w.-]+) line \d+(?:, <[^>]*> (?:line|chunk) \d+)?\.$", 2),
    _s("parse", r".+: line \d+ column \d+ \(char \d+\)$|(?:[Pp]arse|[Ss]yntax) error:? .+", 2),
    # ``[!]`` heads an error of rollup and CocoaPods (``[!] RollupError: Could not resolve …``).
    _s("error", r"\[!\] .+", 2),
    _s("error", r"(?:[\w.-]+: )?Could not (?:find|resolve|load|open|read|locate|connect|create|determine|parse|start) .+",
       2),
    # Exceptions, log levels and generic errors (last: the most generic).
    _s("exception", r"(?:Uncaught )?" + _EXCEPTION + r"(?: \[\w+\])?: .+", 2, "indent"),
    _s("log", r"(?:\[?\d{4}-\d\d-\d\d[T ][\d:.,]+\S*\]? +|\d\d:\d\d:\d\d(?:[.,]\d+)? +)"
       r"\[?(?:ERROR|FATAL|CRITICAL|Error|Fatal|E)\]? .+", 2),
    _a("log", r"\blevel=\"?(?:error|fatal|panic)\b", 2, needles=("level=",)),
    # Python logging's default format, ``LEVEL:logger:message``.
    _s("log", r"(?:CRITICAL|ERROR|FATAL):[\w.]*:.+", 2),
    _s("log", r"(?:ERROR|FATAL|CRITICAL|PANIC)\s+(?:\[[^\]]*\]\s+)?\w.+", 2),
    _s("error", r"(?:fatal|FATAL|Fatal error): .+", 1),
    _s("error", r"(?:FAIL|FAILED|FAILURE):? .+|(?:Failure|Failed|Error|ERROR):\s.+", 2),
    _s("error", r"(?:\S+: )?(?:error|Error|ERROR)(?:\[\w+\])?: .+", 2),
    _s("error", r"\[(?:ERROR|FATAL|error|fatal)\] .+|##\[error\].+|ERROR in .+|ERROR .+", 3),
)


NOISE = re.compile(
    r"\s*● Console$|(?:\[\w+\] )?Tests run: \d+, Failures: 0, Errors: 0\b|\[ERROR\] *$|\[ERROR\] (?:-> \[Help|Re-run Maven|To see the full|For more information|\[Help \d|"
    r"After correcting|  mvn <args>|Failed to execute goal .* on project .*: There are test failures)"
    r"|npm (?:ERR!|error) (?:A complete log|\s*$|Lifecycle script|This is probably not a problem|"
    r"Failed at the|Exit status|code ELIFECYCLE|errno \d|command failed$|command sh -c|path /)"
    r"|error Command failed with exit code|info Visit https|Error: Terraform encountered problems during initiali[sz]ation"
    r"|(?:\S+ )?\d+ errors? (?:generated|found)\b|\d+ errors?$|\s*Error: Process completed with exit code"
)
"""Lines that match a shape but only say that something failed, somewhere else."""
