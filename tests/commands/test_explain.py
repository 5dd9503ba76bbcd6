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
