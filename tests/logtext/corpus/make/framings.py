"""CI framings for the corpus: each wraps the real output of real commands the way a CI system
writes its job log (GitLab runner, GitHub Actions, Travis CI, Jenkins, or the tool alone).

A framing gets the steps that ran (command, output bytes, exit code, seconds taken) and returns the
log as a list of byte lines (without their ``\\n``) plus, for every step, the index of the first line
of its output in that list, so a block marked in a tool's output maps to lines of the framed file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

GREEN = "\x1b[32;1m"
RED = "\x1b[31;1m"
CYAN = "\x1b[36;1m"
YELLOW = "\x1b[0;33m"
RESET = "\x1b[0;m"
CLEAR = "\x1b[0K"


@dataclass
class Step:
    """One command that ran, with what it printed (stdout and stderr merged, as CI captures it)."""

    command: str
    output: bytes
    code: int
    seconds: float


@dataclass
class Job:
    """What a framing needs besides the steps: names, ids, the image and the start time."""

    case: str
    project: str
    image: str
    steps: list[Step]
    after: list[Step]
    failed: bool
    artifacts: bool = False

    def digest(self, salt: str, length: int) -> str:
        return hashlib.sha256(f"{self.case}:{salt}".encode()).hexdigest()[:length]

    @property
    def start(self) -> datetime:
        offset = int(self.digest("start", 6), 16) % (20 * 3600)
        return datetime(2026, 11, 26, 2, 0, 0, tzinfo=UTC) + timedelta(seconds=offset)


def _lines(output: bytes) -> list[bytes]:
    if not output:
        return []
    if output.endswith(b"\n"):
        output = output[:-1]
    return output.split(b"\n")


class _Out:
    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.starts: list[int] = []

    def add(self, text: str) -> None:
        self.lines.extend(text.encode("utf-8").split(b"\n"))

    def raw(self, output: bytes, prefix: bytes = b"") -> None:
        self.lines.extend(prefix + line for line in _lines(output))


# --- GitLab runner ---------------------------------------------------------------------------------

def gitlab(job: Job) -> tuple[list[bytes], list[int]]:
    """gitlab-runner 17.x with the docker executor: sections, green echoes, the red trailer."""
    out = _Out()
    clock = job.start.timestamp()
    token = job.digest("token", 8)
    sha = job.digest("sha", 40)
    image_sha = job.digest("image", 64)
    runner = f"runner-{token.lower()}-project-{int(job.digest('pid', 4), 16) % 900 + 100}-concurrent-0"

    def mark(kind: str, name: str) -> str:
        return f"section_{kind}:{int(clock)}:{name}\r{CLEAR}"

    out.add(f"{CLEAR}Running with gitlab-runner 17.11.1 (96856197){RESET}")
    out.add(f"{CLEAR}  on docker-shared-2 {token}, system ID: s_{job.digest('sys', 12)}{RESET}")
    out.add(mark("start", "prepare_executor") + f"{CLEAR}{CYAN}Preparing the \"docker\" executor{RESET}")
    out.add(f"{CLEAR}Using Docker executor with image {job.image} ...{RESET}")
    out.add(f"{CLEAR}Pulling docker image {job.image} ...{RESET}")
    out.add(f"{CLEAR}Using docker image sha256:{image_sha} for {job.image} with digest "
            f"{job.image.split(':')[0]}@sha256:{job.digest('digest', 64)} ...{RESET}")
    clock += 6.2
    out.add(mark("end", "prepare_executor") + mark("start", "prepare_script")
            + f"{CLEAR}{CYAN}Preparing environment{RESET}")
    out.add(f"Running on {runner} via gitlab-runner-ci-2...")
    clock += 1.1
    out.add(mark("end", "prepare_script") + mark("start", "get_sources")
            + f"{CLEAR}{CYAN}Getting source from Git repository{RESET}")
    out.add(f"{GREEN}Fetching changes with git depth set to 20...{RESET}")
    out.add(f"Initialized empty Git repository in /builds/acme/{job.project}/.git/")
    out.add(f"{GREEN}Created fresh repository.{RESET}")
    out.add(f"{GREEN}Checking out {sha[:8]} as detached HEAD (ref is main)...{RESET}")
    out.add("")
    out.add(f"{GREEN}Skipping Git submodules setup{RESET}")
    clock += 2.4
    out.add(mark("end", "get_sources") + mark("start", "step_script")
            + f"{CLEAR}{CYAN}Executing \"step_script\" stage of the job script{RESET}")
    out.add(f"{CLEAR}Using docker image sha256:{image_sha} for {job.image} with digest "
            f"{job.image.split(':')[0]}@sha256:{job.digest('digest', 64)} ...{RESET}")
    for step in job.steps:
        out.add(f"{GREEN}$ {step.command}{RESET}")
        out.starts.append(len(out.lines))
        out.raw(step.output)
        clock += step.seconds
    if job.after:
        out.add(mark("end", "step_script") + mark("start", "after_script")
                + f"{CLEAR}{CYAN}Running after_script{RESET}")
        out.add(f"{GREEN}Running after script...{RESET}")
        for step in job.after:
            out.add(f"{GREEN}$ {step.command}{RESET}")
            out.raw(step.output)
            clock += step.seconds
        last = "after_script"
    else:
        last = "step_script"
    if job.artifacts:
        which = "on_failure" if job.failed else "on_success"
        title = "Uploading artifacts for failed job" if job.failed else "Uploading artifacts for successful job"
        out.add(mark("end", last) + mark("start", f"upload_artifacts_{which}") + f"{CLEAR}{CYAN}{title}{RESET}")
        out.add(f"{GREEN}Uploading artifacts...{RESET}")
        out.add("report.xml: found 1 matching artifact files and directories")
        out.add(f"Uploading artifacts as \"junit\" to coordinator... 201 Created{RESET}  id={job.digest('jid', 4)} "
                f"responseStatus=201 Created token={job.digest('art', 16)}")
        last = f"upload_artifacts_{which}"
    clock += 1.0
    out.add(mark("end", last) + mark("start", "cleanup_file_variables")
            + f"{CLEAR}{CYAN}Cleaning up project directory and file based variables{RESET}")
    out.add(mark("end", "cleanup_file_variables"))
    if job.failed:
        code = next(step.code for step in job.steps if step.code)
        out.add(f"{RED}ERROR: Job failed: exit code {code}")
        out.add(f"{RESET}")
    else:
        out.add(f"{GREEN}Job succeeded{RESET}")
    return out.lines, out.starts


# --- GitHub Actions ---------------------------------------------------------------------------------

def github(job: Job) -> tuple[list[bytes], list[int]]:
    """A job log as GitHub Actions serves it: BOM, a 7-digit timestamp on every line, groups."""
    out = _Out()
    now = job.start
    repo = f"acme/{job.project}"

    def stamp() -> bytes:
        return now.strftime("%Y-%m-%dT%H:%M:%S.").encode() + f"{now.microsecond * 10:07d}Z ".encode()

    def add(text: str) -> None:
        for line in text.split("\n"):
            out.lines.append(stamp() + line.encode("utf-8"))

    setup = [
        "Current runner version: '2.321.0'",
        "##[group]Operating System", "Ubuntu", "24.04.1", "LTS", "##[endgroup]",
        "##[group]Runner Image", "Image: ubuntu-24.04", "Version: 20241201.1.0",
        "Included Software: https://github.com/actions/runner-images/blob/ubuntu24/20241201.1/images/ubuntu/Ubuntu2404-Readme.md",
        "##[endgroup]",
        "##[group]GITHUB_TOKEN Permissions", "Contents: read", "Metadata: read", "##[endgroup]",
        "Secret source: Actions",
        "Prepare workflow directory", "Prepare all required actions",
        "Getting action download info",
        f"Download action repository 'actions/checkout@v4' (SHA:{job.digest('co', 40)})",
        f"Complete job name: {job.case}",
        "##[group]Run actions/checkout@v4", "with:", f"  repository: {repo}", "  token: ***",
        "  ssh-strict: true", "  persist-credentials: true", "  clean: true", "  fetch-depth: 1",
        "##[endgroup]",
        f"Syncing repository: {repo}",
        "##[group]Getting Git version info",
        f"Working directory is '/home/runner/work/{job.project}/{job.project}'",
        "[command]/usr/bin/git version", "git version 2.47.1", "##[endgroup]",
        f"[command]/usr/bin/git -c protocol.version=2 fetch --no-tags --prune --no-recurse-submodules "
        f"--depth=1 origin +{job.digest('sha', 40)}:refs/remotes/origin/main",
        f" * [new ref]         {job.digest('sha', 40)} -> origin/main",
        "[command]/usr/bin/git log -1 --format=%H", job.digest("sha", 40),
    ]
    out.lines.append(b"\xef\xbb\xbf" + stamp() + setup[0].encode())
    for line in setup[1:]:
        now += timedelta(microseconds=137_411)
        add(line)
    failed_at: int | None = None
    for index, step in enumerate(job.steps):
        now += timedelta(seconds=0.4)
        add(f"##[group]Run {step.command}")
        add(step.command)
        add("shell: /usr/bin/bash -e {0}")
        add("env:")
        add("  CI: true")
        add("##[endgroup]")
        out.starts.append(len(out.lines))
        lines = _lines(step.output)
        for number, line in enumerate(lines):
            now_line = now + timedelta(seconds=step.seconds * number / max(len(lines), 1))
            out.lines.append(now_line.strftime("%Y-%m-%dT%H:%M:%S.").encode()
                             + f"{now_line.microsecond * 10:07d}Z ".encode() + line)
        now += timedelta(seconds=step.seconds)
        if step.code:
            add(f"##[error]Process completed with exit code {step.code}.")
            failed_at = index
            break
    now += timedelta(seconds=1.3)
    add("Post job cleanup.")
    add("[command]/usr/bin/git version")
    add("git version 2.47.1")
    add(f"Temporarily overriding HOME='/home/runner/work/_temp/{job.digest('tmp', 8)}' before making global "
        "git config changes")
    add("[command]/usr/bin/git config --local --name-only --get-regexp core\\.sshCommand")
    add("[command]/usr/bin/git config --local --name-only --get-regexp http\\.https\\:\\/\\/github\\.com\\/\\.extraheader")
    add("http.https://github.com/.extraheader")
    add("Cleaning up orphan processes")
    del failed_at
    return out.lines, out.starts


# --- Travis CI ----------------------------------------------------------------------------------------

def travis(job: Job) -> tuple[list[bytes], list[int]]:
    """A Travis CI build log: worker info, folds, timed commands, ``The command … exited with``."""
    out = _Out()
    clock = int(job.start.timestamp() * 1e9)
    travis_reset = "\x1b[0m"
    out.add(f"travis_fold:start:worker_info\r{CLEAR}\x1b[33;1mWorker information{travis_reset}")
    out.add(f"hostname: {job.digest('host', 8)}-{job.digest('h2', 4)}-travis-ci-org-gce")
    out.add("version: v6.2.22 https://github.com/travis-ci/worker/tree/aa3f5e3d")
    out.add("instance: travis-job-linux-focal (via amqp)")
    out.add(f"startup: 6.2{job.digest('s', 2).encode()[0] % 10}s")
    out.add(f"travis_fold:end:worker_info\r{CLEAR}travis_time:start:{job.digest('t0', 8)}\r{CLEAR}")
    out.add(f"travis_time:end:{job.digest('t0', 8)}:start={clock},finish={clock + 21_000_000},"
            f"duration=21000000,event=no_world_writable_dirs\r{CLEAR}travis_fold:start:git.checkout\r{CLEAR}"
            f"travis_time:start:{job.digest('t1', 8)}\r{CLEAR}$ git clone --depth=50 --branch=main "
            f"https://github.com/acme/{job.project}.git acme/{job.project}")
    out.add(f"Cloning into 'acme/{job.project}'...")
    out.add("Receiving objects: 100% (231/231), 61.08 KiB | 3.05 MiB/s, done.")
    out.add("Resolving deltas: 100% (97/97), done.")
    clock += 1_200_000_000
    out.add(f"travis_time:end:{job.digest('t1', 8)}:start={clock - 1_200_000_000},finish={clock},"
            f"duration=1200000000,event=checkout\r{CLEAR}$ cd acme/{job.project}")
    out.add(f"$ git checkout -qf {job.digest('sha', 40)}")
    out.add(f"travis_fold:end:git.checkout\r{CLEAR}")
    for index, step in enumerate(job.steps):
        tid = job.digest(f"step{index}", 8)
        prefix = f"travis_fold:start:install.{index}\r{CLEAR}" if step is not job.steps[-1] else ""
        out.add(f"{prefix}travis_time:start:{tid}\r{CLEAR}$ {step.command}")
        out.starts.append(len(out.lines))
        out.raw(step.output)
        took = int(step.seconds * 1e9)
        event = "script" if step is job.steps[-1] else "install"
        end = (f"travis_time:end:{tid}:start={clock},finish={clock + took},duration={took},"
               f"event={event}\r{CLEAR}")
        clock += took
        if step.code:
            out.add(f"{end}\x1b[31;1mThe command \"{step.command}\" exited with {step.code}.{travis_reset}")
            break
        if event == "install":
            out.add(f"{end}travis_fold:end:install.{index}\r{CLEAR}")
        else:
            out.add(f"{end}\x1b[32;1mThe command \"{step.command}\" exited with 0.{travis_reset}")
    out.add("")
    code = next((step.code for step in job.steps if step.code), 0)
    out.add(f"Done. Your build exited with {1 if code else 0}.")
    return out.lines, out.starts


# --- Jenkins -------------------------------------------------------------------------------------------

def jenkins(job: Job) -> tuple[list[bytes], list[int]]:
    """A Jenkins console log: a declarative pipeline whose ``sh`` steps trace with ``+ cmd``."""
    out = _Out()
    workspace = f"/var/jenkins_home/workspace/{job.project}_main"
    out.add("Started by an SCM change")
    out.add(f"Obtained Jenkinsfile from git https://git.acme.example/acme/{job.project}.git")
    out.add("[Pipeline] Start of Pipeline")
    out.add("[Pipeline] node")
    out.add(f"Running on agent-linux-3 in {workspace}")
    out.add("[Pipeline] {")
    out.add("[Pipeline] stage")
    out.add("[Pipeline] { (Declarative: Checkout SCM)")
    out.add("[Pipeline] checkout")
    out.add("The recommended git tool is: NONE")
    out.add("No credentials specified")
    out.add("Fetching changes from the remote Git repository")
    out.add(f" > git rev-parse --resolve-git-dir {workspace}/.git # timeout=10")
    out.add(f"Checking out Revision {job.digest('sha', 40)} (refs/remotes/origin/main)")
    out.add(f" > git checkout -f {job.digest('sha', 40)} # timeout=10")
    out.add(f"Commit message: \"Merge branch 'feature/{job.digest('br', 5)}'\"")
    out.add("[Pipeline] }")
    out.add("[Pipeline] // stage")
    out.add("[Pipeline] withEnv")
    out.add("[Pipeline] {")
    failed = False
    for index, step in enumerate(job.steps):
        if failed:
            break
        stage = "Build" if index < len(job.steps) - 1 else "Test"
        out.add("[Pipeline] stage")
        out.add(f"[Pipeline] {{ ({stage})")
        out.add("[Pipeline] sh")
        out.add(f"+ {step.command}")
        out.starts.append(len(out.lines))
        out.raw(step.output)
        out.add("[Pipeline] }")
        out.add("[Pipeline] // stage")
        failed = step.code != 0
    out.add("[Pipeline] stage")
    out.add("[Pipeline] { (Declarative: Post Actions)")
    out.add("[Pipeline] junit")
    out.add("Recording test results")
    out.add("[Checks API] No suitable checks publisher found.")
    out.add("[Pipeline] }")
    out.add("[Pipeline] // stage")
    out.add("[Pipeline] }")
    out.add("[Pipeline] // withEnv")
    out.add("[Pipeline] }")
    out.add("[Pipeline] // node")
    out.add("[Pipeline] End of Pipeline")
    if failed:
        code = next(step.code for step in job.steps if step.code)
        out.add(f"ERROR: script returned exit code {code}")
        out.add("Finished: FAILURE")
    else:
        out.add("Finished: SUCCESS")
    return out.lines, out.starts


def jenkins_freestyle(job: Job) -> tuple[list[bytes], list[int]]:
    """A Jenkins freestyle job: one ``Execute shell`` step run with ``sh -xe``."""
    out = _Out()
    workspace = f"/var/jenkins_home/workspace/{job.project}"
    out.add("Started by user Release Bot")
    out.add("Running as SYSTEM")
    out.add(f"Building on the built-in node in workspace {workspace}")
    out.add("The recommended git tool is: NONE")
    out.add(f" > git rev-parse --resolve-git-dir {workspace}/.git # timeout=10")
    out.add(f"Fetching upstream changes from https://git.acme.example/acme/{job.project}.git")
    out.add(f"Checking out Revision {job.digest('sha', 40)} (origin/main)")
    out.add(f"[{job.project}] $ /bin/sh -xe /tmp/jenkins{int(job.digest('sh', 6), 16)}.sh")
    failed = False
    for step in job.steps:
        out.add(f"+ {step.command}")
        out.starts.append(len(out.lines))
        out.raw(step.output)
        if step.code:
            failed = True
            break
    if failed:
        out.add("Build step 'Execute shell' marked build as failure")
        out.add("Archiving artifacts")
        out.add("Finished: FAILURE")
    else:
        out.add("Archiving artifacts")
        out.add("Finished: SUCCESS")
    return out.lines, out.starts


def plain(job: Job) -> tuple[list[bytes], list[int]]:
    """The tools' own output, nothing around it (a log saved by hand, a local run)."""
    out = _Out()
    for step in job.steps:
        out.starts.append(len(out.lines))
        out.raw(step.output)
        if step.code:
            break
    return out.lines, out.starts


FRAMINGS = {"gitlab": gitlab, "github": github, "travis": travis, "jenkins": jenkins,
            "jenkins-freestyle": jenkins_freestyle, "plain": plain}
