#!/usr/bin/env python3
"""Re-make the log corpus: run the real tools on the small projects in ``projects/``, frame their
output as a CI system writes its job log, and write ``<tool>/<case>.log`` with its sidecar.

Usage: ``python make_corpus.py [--only SUBSTRING ...]`` (the tools must be installed: see the README).
Not run by CI: the committed logs are the data.

Each case names its project, the commands of the job (the last one fails), the framing, and the block
a person should read first, marked by content in the failing command's output (``start`` and ``end``
are regular expressions matched against lines with their colours removed). The script maps that block
to line numbers of the framed file, so sidecars never go stale when a framing changes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from case import Case
from framings import FRAMINGS, Job, Step
from jobs import CASES

HERE = Path(__file__).resolve().parent
PROJECTS = HERE / "projects"
CORPUS = HERE.parent
WORK = Path(os.environ.get("CORPUS_WORK", "/tmp/c28"))
TOOLS = Path(os.environ.get("CORPUS_TOOLS", "/tmp/corpus28"))
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
WORKDIRS = {
    "gitlab": "builds/acme/{p}",
    "github": "home/runner/work/{p}/{p}",
    "travis": "home/travis/build/acme/{p}",
    "jenkins": "var/jenkins_home/workspace/{p}_main",
    "jenkins-freestyle": "var/jenkins_home/workspace/{p}",
    "plain": "home/dev/src/{p}",
}


def _env(case: Case) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{TOOLS / 'pyvenv' / 'bin'}:{env['PATH']}"
    env.pop("VIRTUAL_ENV", None)
    env.update({"CI": "true", "TERM": "dumb", "PYTHONDONTWRITEBYTECODE": "1"})
    if case.framing == "github":
        env["GITHUB_ACTIONS"] = "true"
    if case.framing == "gitlab":
        env["GITLAB_CI"] = "true"
    env.update(case.env)
    return env


def _prepare(case: Case, fixed: bool) -> Path:
    where = Path(f"{WORK}p" if fixed else WORK) / WORKDIRS[case.framing].format(p=case.project)
    if where.exists():
        shutil.rmtree(where)
    where.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(PROJECTS / case.project, where, symlinks=True)
    for name, pairs in (case.fix if fixed else {}).items():
        path = where / name
        text = path.read_text() if path.exists() else ""
        for old, new in pairs:
            if old and old not in text:
                raise SystemExit(f"{case.name}: fix {old!r} not in {name}")
            text = text.replace(old, new, 1) if old else new
        path.write_text(text)
    return where


def _run(command: str, where: Path, env: dict[str, str], timeout: int) -> Step:
    began = time.monotonic()
    try:
        # A trailing `exit $?` keeps bash from exec-ing a lone command, so bash itself reports a
        # crash ("Segmentation fault (core dumped)") as the job's shell does in CI.
        done = subprocess.run(["bash", "-c", f"{command}\nexit $?"], cwd=where, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, check=False)
        output, code = done.stdout, done.returncode if done.returncode >= 0 else 128 - done.returncode
    except subprocess.TimeoutExpired as exc:
        output, code = (exc.stdout or b"") + b"\nTerminated (timeout)\n", 124
    return Step(command, output, code, time.monotonic() - began)


def run_job(case: Case, fixed: bool) -> Job:
    """Run the case's commands as a job would: stop at the first that fails, then the after-script.

    The failing run first runs the case's hidden commands (the "bad commit": they are not in the
    log); the passing run skips them and applies the case's fix instead."""
    where = _prepare(case, fixed)
    env = _env(case)
    for command in case.prepare + ([] if fixed else case.hidden):
        done = _run(command, where, env, case.timeout)
        if done.code:
            raise SystemExit(f"{case.name}: hidden step failed: {command}\n{done.output.decode()}")
    steps: list[Step] = []
    for command in case.steps:
        step = _run(command, where, env, case.timeout)
        steps.append(step)
        if step.code:
            break
    after = [_run(command, where, env, 60) for command in case.after]
    return Job(case.name, case.project, case.image, steps, after, failed=steps[-1].code != 0,
               artifacts=case.artifacts)


def find_block(case: Case, output: bytes) -> tuple[int, int]:
    """0-based first and last line of the marked block in the failing command's output."""
    lines = [ANSI.sub("", line) for line in output.decode("utf-8", "replace").split("\n")]
    begin = 0
    if case.after_re:
        begin = next(i for i, line in enumerate(lines) if re.search(case.after_re, line)) + 1
    matches = [i for i in range(begin, len(lines)) if re.search(case.start, lines[i])]
    if not matches:
        raise LookupError(f"{case.name}: no line matches start {case.start!r}")
    first = matches[case.nth]
    if case.end is None:
        return first, first + case.extra
    # An end pattern starting with "(?#before)" marks the line before its next match after the start.
    after = 1 if case.end.startswith("(?#before)") else 0
    last = next((i for i in range(first + after, len(lines)) if re.search(case.end, lines[i])), None)
    if last is not None and after:
        last -= 1
    if last is None:
        raise LookupError(f"{case.name}: no line matches end {case.end!r} after line {first}")
    return first, last + case.extra


def write_case(case: Case, with_pass: bool) -> str:
    """Run, frame and write one case (and its passing log); returns a one-line summary."""
    job = run_job(case, fixed=False)
    if not job.failed:
        raise SystemExit(f"{case.name}: the job did not fail:\n" + job.steps[-1].output.decode()[-2000:])
    if len(job.steps) != len(case.steps):
        raise SystemExit(f"{case.name}: step {len(job.steps)} failed, not the last:\n"
                         + job.steps[-1].output.decode()[-2000:])
    lines, starts = FRAMINGS[case.framing](job)
    first, last = find_block(case, job.steps[-1].output)
    line, end = starts[-1] + first + 1, starts[-1] + last + 1
    sidecar: dict[str, object] = {"tool": case.tool, "framing": case.framing.split("-")[0], "line": line,
                                  "end": end, "kind": case.kind, "cause": case.cause}
    good_lines: list[bytes] | None = None
    if with_pass and (case.fix or case.hidden):
        good = run_job(case, fixed=True)
        if good.failed:
            raise SystemExit(f"{case.name}: the fixed job failed:\n" + good.steps[-1].output.decode()[-3000:])
        good_lines, _ = FRAMINGS[case.framing](good)
        sidecar["passing"] = f"{case.name}.pass.log"
    # Written only once everything ran, so a case that fails half-way leaves no stale files.
    if case.tool == HERE.name:
        raise SystemExit(f"{case.name}: tool {case.tool!r} would write into the generator's folder")
    folder = CORPUS / case.tool
    folder.mkdir(exist_ok=True)
    (folder / f"{case.name}.log").write_bytes(b"\n".join(lines) + b"\n")
    if good_lines is not None:
        (folder / f"{case.name}.pass.log").write_bytes(b"\n".join(good_lines) + b"\n")
    (folder / f"{case.name}.json").write_text(json.dumps(sidecar, indent=1) + "\n")
    shown = ANSI.sub("", lines[line - 1].decode("utf-8", "replace"))[:100]
    return f"{case.tool}/{case.name}: {line}-{end} {shown}"


def table() -> str:
    """Counts per tool and framing of the committed corpus, as a Markdown table for the README."""
    rows: dict[str, dict[str, int]] = {}
    passing: dict[str, int] = {}
    for sidecar in sorted(CORPUS.glob("*/*.json")):
        meta = json.loads(sidecar.read_text())
        counts = rows.setdefault(meta["tool"], {})
        counts[meta["framing"]] = counts.get(meta["framing"], 0) + 1
        passing[meta["tool"]] = passing.get(meta["tool"], 0) + ("passing" in meta)
    framings = ["gitlab", "github", "travis", "jenkins", "plain"]
    out = ["| tool | logs | " + " | ".join(framings) + " | with passing log |",
           "|---" * (len(framings) + 3) + "|"]
    for tool, counts in rows.items():
        cells = " | ".join(str(counts.get(f, "")) for f in framings)
        out.append(f"| {tool} | {sum(counts.values())} | {cells} | {passing[tool] or ''} |")
    totals = {f: sum(c.get(f, 0) for c in rows.values()) for f in framings}
    out.append(f"| **{len(rows)} tools** | **{sum(totals.values())}** | "
               + " | ".join(f"**{totals[f]}**" for f in framings) + f" | **{sum(passing.values())}** |")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", default=[], help="case names or tools containing these")
    parser.add_argument("--no-pass", action="store_true", help="skip the passing logs")
    parser.add_argument("--table", action="store_true", help="print the README's table of counts and stop")
    args = parser.parse_args()
    if args.table:
        print(table())
        return 0
    chosen = [c for c in CASES if not args.only or any(s in f"{c.tool}/{c.name}" for s in args.only)]
    failures = 0
    for case in chosen:
        try:
            print(write_case(case, with_pass=not args.no_pass), flush=True)
        except (LookupError, SystemExit, StopIteration) as exc:
            failures += 1
            print(f"FAILED {case.tool}/{case.name}: {exc}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
