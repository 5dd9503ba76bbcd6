"""``labdeck explain``: the cause of log files, one report (or JSON line) per file, in one process."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from labdeck.commands.cli import main
from labdeck.commands.explain import run_explain

FAILED = ("Running with gitlab-runner 17.2.0\n$ pip install -r requirements.txt\nCollecting yaml\n$ pytest -q\n"
          "..F\n    def test_load():\n>       assert load() == {}\nE       assert {'a': 1} == {}\nE         Left contains 1 more item\n"
          "FAILED tests/test_load.py::test_load\nERROR: Job failed: exit code 1\n")


def _explain(*args: str, stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    files = [a for a in args if not a.startswith("--")]
    status = run_explain(files, as_json_lines="--json" in args, passing=None, out=out, err=err,
                         stdin=io.BytesIO(stdin))
    return status, out.getvalue(), err.getvalue()


def test_json_has_the_block_the_signature_and_no_platform(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text(FAILED)
    status, out, err = _explain("--json", str(log))
    assert status == 0 and err == ""
    answer = json.loads(out)
    assert answer["file"] == str(log)
    assert answer["error"] == {"line": 8, "end": 9, "kind": "pytest",
                               "text": "E       assert {'a': 1} == {}\nE         Left contains 1 more item"}
    assert answer["signature"] == "E assert {'a': <n>} == {}"
    assert answer["platform"] is None


def test_the_human_report_numbers_the_block(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text(FAILED)
    status, out, _ = _explain(str(log))
    assert status == 0
    assert "error at lines 8-9 (pytest)" in out
    assert " 8 | E       assert {'a': 1} == {}" in out
    assert "signature: E assert {'a': <n>} == {}" in out


def test_a_missing_file_is_one_line_on_stderr_and_the_others_are_answered(tmp_path: Path) -> None:
    good = tmp_path / "good.log"
    good.write_text(FAILED)
    status, out, err = _explain("--json", str(tmp_path / "gone.log"), str(good), "-", stdin=b"Killed\nERROR: Job failed: exit code 137\n")
    assert status == 1
    assert err.count("\n") == 1 and "gone.log: not read: No such file or directory" in err
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["file"] for a in answers] == [str(good), "-"]
    assert answers[1]["platform"] == {"label": "out of memory (exit code 137)", "line": 2,
                                      "text": "ERROR: Job failed: exit code 137"}
    assert answers[1]["error"]["text"] == "Killed"


def test_passing_log_puts_old_lines_last(tmp_path: Path, capsys: object) -> None:
    noise = "error: config key 'cache_dir' is deprecated"
    failing = tmp_path / "red.log"
    failing.write_text(f"$ ./check\n{noise}\nerror: widget 7 missing\nERROR: Job failed: exit code 1\n")
    passing = tmp_path / "green.log"
    passing.write_text(f"$ ./check\n{noise}\nall good\n")
    assert main(["explain", "--json", "--passing", str(passing), str(failing)]) == 0
    answer = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert answer["error"]["line"] == 3 and answer["new_lines"] == 2


def test_hostile_text_is_printed_safely(tmp_path: Path) -> None:
    log = tmp_path / "evil.log"
    log.write_bytes(b"$ make\nsrc/a.c:1:1: error: \x1b]52;c;aGk=\x07boom \x1b[2J\xe2\x80\xaeevil\nERROR: Job failed: exit code 1\n")
    status, out, _ = _explain(str(log))
    assert status == 0 and "\x1b" not in out and "\u202e" not in out and "boom" in out


def test_the_real_command(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text(FAILED)
    src = Path(__file__).resolve().parents[2] / "src"
    done = subprocess.run([sys.executable, "-m", "labdeck", "explain", "--json", str(log), str(tmp_path / "none")],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(src)})
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["line"] == 8
    assert done.stderr.startswith("labdeck explain: ") and done.stderr.count("\n") == 1


def test_a_log_whose_job_succeeded_has_no_error(tmp_path: Path) -> None:
    """A green run's log (GitLab's ``Job succeeded``, Jenkins' ``Finished: SUCCESS``, Travis' ``exited
    with 0``) names no error, even when it printed error-shaped lines; its tail is not a cause."""
    logs = {
        "gitlab.log": "Running with gitlab-runner 17.2.0\n$ pytest -q\n....\n4 passed in 0.05s\n"
                      "\x1b[32;1mJob succeeded\x1b[0;m\n",
        "jenkins.log": "[Pipeline] sh\n+ make test\n[ERROR] retrying a flaky download\nok\nFinished: SUCCESS\n",
        "travis.log": "$ npm test\n\n  3 passing (12ms)\n\nThe command \"npm test\" exited with 0.\n\n"
                      "Done. Your build exited with 0.\n",
    }
    for name, text in logs.items():
        (tmp_path / name).write_text(text)
    status, out, err = _explain("--json", *(str(tmp_path / name) for name in logs))
    assert status == 0 and err == ""
    for line in out.splitlines():
        answer = json.loads(line)
        assert (answer["error"], answer["signature"], answer["platform"]) == (None, "", None), answer["file"]
        assert answer["succeeded"] is True
    status, out, _ = _explain(str(tmp_path / "gitlab.log"))
    assert "no error: the job succeeded" in out
    # A failed log is not a success because an earlier step printed a success-looking line.
    (tmp_path / "failed.log").write_text("Job succeeded\n" + FAILED)
    _, out, _ = _explain("--json", str(tmp_path / "failed.log"))
    assert json.loads(out)["error"] is not None


def test_a_github_actions_log_without_an_error_succeeded(tmp_path: Path) -> None:
    steps = ("2026-11-26T21:52:07.1Z ##[group]Run cargo test\n2026-11-26T21:52:07.2Z cargo test\n"
             "2026-11-26T21:52:07.3Z ##[endgroup]\n2026-11-26T21:52:08.0Z test result: ok. 3 passed; 0 failed\n")
    end = "2026-11-26T21:52:09.0Z Post job cleanup.\n2026-11-26T21:52:09.1Z Cleaning up orphan processes\n"
    (tmp_path / "green.log").write_text(steps + end)
    (tmp_path / "red.log").write_text(steps + "2026-11-26T21:52:08.1Z ##[error]Process completed with exit code 101.\n"
                                      + end)
    _, out, _ = _explain("--json", str(tmp_path / "green.log"), str(tmp_path / "red.log"))
    green, red = (json.loads(line) for line in out.splitlines())
    assert green["error"] is None and green["succeeded"] is True
    assert red["error"] is not None and red["succeeded"] is False


def test_a_log_of_only_the_runners_lines_is_not_called_empty(tmp_path: Path) -> None:
    """A log cut short after the runner's preamble (or glued into one line, its newlines lost on
    the way) holds nothing to name; the report says what it read, not that the file was empty."""
    glued = ("\x1b[0KRunning with gitlab-runner 17.2.0\x1b[0;m\x1b[0K  on docker-shared-2\r"
             "section_start:1764122400:prepare_executor\r\x1b[0KPreparing the \"docker\" executor\r"
             "$ pytest -q\rE       assert 1 == 2\rERROR: Job failed: exit code 1")
    (tmp_path / "cut.log").write_text(glued)
    (tmp_path / "empty.log").write_text("")
    _, out, _ = _explain(str(tmp_path / "cut.log"), str(tmp_path / "empty.log"))
    cut, empty = out.split(f"{tmp_path / 'empty.log'}:")
    assert "no error found: its 1 line is the CI system's own" in cut and "empty" not in cut
    assert "no error found (empty log)" in empty


def test_each_json_line_is_what_json_dumps_writes(tmp_path: Path) -> None:
    """The JSON lines are written directly (no encoder per file): byte for byte what
    ``json.dumps(as_json(…), ensure_ascii=False)`` writes, for every kind of value they hold
    (null error and platform, a platform hit, new lines, quotes, tabs, non-ASCII, a lone surrogate)."""
    from labdeck.commands.explain import as_json, json_line
    from labdeck.logtext.cause import read_cause

    logs = {
        "fail \"q\"\t.log": FAILED,
        "empty.log": "",
        "ok.log": "$ make\nok\nJob succeeded\n",
        "pull.log": "Running with gitlab-runner 17.2.0\nERROR: Job failed (system failure): failed to pull image "
                    "\"registry.example.com/x:1\": toomanyrequests\n",
        "unicode.log": "$ cargo test\nerror[E0425]: cannot find value `ü\ud800` in this scope — «x»\n",
    }
    for name, text in logs.items():
        for passing in (None, "$ pip install -r requirements.txt\n"):
            answer = read_cause(text, passing)
            assert json_line(name, answer) == json.dumps(as_json(name, answer), ensure_ascii=False)


def test_a_log_larger_than_a_read_is_read_whole(tmp_path: Path) -> None:
    """Files are read in blocks sized to the file (a small log in one read, a big one a megabyte at
    a time): a log of several blocks is answered the same as its text read at once."""
    from labdeck.logtext.cause import read_cause

    log = tmp_path / "big.log"
    filler = "".join(f"compiling module {n} of 40000\n" for n in range(40_000))
    text = "$ make\n" + filler + "src/sync.c:3:10: error: expected ';' before '}' token\nERROR: Job failed: exit code 2\n"
    log.write_text(text)
    assert log.stat().st_size > 1 << 20
    status, out, _ = _explain("--json", str(log))
    answer = json.loads(out)
    expected = read_cause(text)
    assert status == 0 and expected.error is not None
    assert (answer["error"]["line"], answer["lines"]) == (expected.error.line, expected.line_count) == (40_002, 40_003)
