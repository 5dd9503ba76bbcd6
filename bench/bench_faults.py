"""Server trouble as a person meets it (issue 24), the real ``labdeck`` executable in a
pseudo-terminal, through the fault-switching proxy of the tests (``tests/support/fault_switch.py``)
in front of a separately started ``labdeck serve``:

- **502 storm**: the console on its projects screen (the CI column, the activity check, the
  reconnection attempts all reading), then on the board (every watched project read every 5 s),
  each time 60 s of nginx's 502 page to every API request. Counted:
  the requests that reached the proxy in those 60 s. Beside it, in the same run and through its own
  proxy, the naive retry: one read sent again one second after each failure. Target ≤ 30 a minute.
- **3 s latency**: every API request answered 3 s late. Timed: exec to the first frame (the
  header and the key bar drawn), and to the first project rows. Target for the first frame: one
  round trip (the start-up token check) plus start-up, ≤ 4.5 s; it used to be two round trips in a
  row (``GET /user`` then the write probe ``POST /projects``), 7 s.

Run standalone: ``.venv/bin/python bench/bench_faults.py [--storm-seconds 60] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _console_env import ADMIN_TOKEN, LABDECK, Server, console_env, row_markers, temp_dir
from _pty import PtyProgram
from _report import record, spread
from tests.support.fault_switch import FaultSwitch

STORM_TARGET = 30
FIRST_FRAME_TARGET = 4.5
LATENCY = 3.0


def naive_retry(url: str, stop: threading.Event) -> None:
    """What a script without back-off does: read, and on failure read again a second later."""
    request = urllib.request.Request(f"{url}/api/v4/projects?per_page=20", headers={"PRIVATE-TOKEN": ADMIN_TOKEN})
    while not stop.is_set():
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                answer.read()
            stop.wait(5.0)  # fine: poll every 5 s like the board
        except (urllib.error.URLError, OSError):
            stop.wait(1.0)


def storm(server: Server, seconds: float, section: str) -> tuple[int, int, list[float]]:
    """Requests during ``seconds`` of 502s with ``section`` on screen (``projects`` or ``board``):
    (labdeck, naive), and labdeck's request times."""
    with FaultSwitch(server.url) as console_side, FaultSwitch(server.url) as naive_side, \
            temp_dir("labdeck-bench-faults-") as home:
        env = console_env(Path(home), url=console_side.url)
        markers = row_markers(server.project_paths()[:5])
        stop = threading.Event()
        naive = threading.Thread(target=naive_retry, args=(naive_side.url, stop), daemon=True)
        with PtyProgram([LABDECK], env=env, columns=120, rows=40) as program:
            program.wait_for(lambda out: all(m.encode() in out for m in markers), timeout=60)
            if section == "board":
                mark = len(program.output)
                program.send("0")
                program.wait_for(lambda out: b"projects watched" in out[mark:], timeout=30)
            program.drain(3.0)  # the first rounds of the CI column (the board) and the activity check
            naive.start()
            console_side.set("bad_gateway")
            naive_side.set("bad_gateway")
            began = time.monotonic()
            program.drain(seconds)
            ended = time.monotonic()
            stop.set()
            shown = program.output.decode("utf-8", "replace")
            html_shown = "<center>" in shown or "<html>" in shown
        naive.join(5)
        sent = [t - began for t, *_ in console_side.api_requests(since=began) if t < ended]
        naive_sent = [t for t, *_ in naive_side.api_requests(since=began) if t < ended]
        if html_shown:
            print("  the page's HTML reached the terminal!")
        return len(sent), len(naive_sent), sent


def first_frame(server: Server) -> tuple[float, float]:
    """Seconds from exec to the first frame, and to the first rows, with every answer 3 s late."""
    with FaultSwitch(server.url) as switch, temp_dir("labdeck-bench-latency-") as home:
        switch.set("latency", seconds=LATENCY)
        env = console_env(Path(home), url=switch.url)
        markers = row_markers(server.project_paths()[:5])
        with PtyProgram([LABDECK], env=env, columns=120, rows=40) as program:
            frame = program.wait_for(lambda out: b"Keys" in out and b"Projects" in out, timeout=60)
            rows = program.wait_for(lambda out: all(m.encode() in out for m in markers), timeout=60)
        return frame, rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--storm-seconds", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with Server("--clock", "manual") as server:
        for section in ("projects", "board"):
            print(f"502 storm, {args.storm_seconds:.0f} s, {section} on screen:")
            labdeck, naive, times = storm(server, args.storm_seconds, section)
            per_minute = labdeck * 60.0 / args.storm_seconds
            naive_per_minute = naive * 60.0 / args.storm_seconds
            print(f"  labdeck: {labdeck} requests ({per_minute:.0f}/min) at "
                  f"{', '.join(f'{t:.1f}' for t in times)} s")
            print(f"  naive retry (one read, again 1 s after each failure): {naive} requests "
                  f"({naive_per_minute:.0f}/min)")
            record(f"requests a minute in a 502 storm ({section})", f"≤ {STORM_TARGET}",
                   f"{per_minute:.0f}/min", per_minute <= STORM_TARGET, how="pty",
                   note=f"naive retry beside it: {naive_per_minute:.0f}/min; every read path backs off together")
            record(f"requests a minute in a 502 storm: naive retry ({section} run)", "—",
                   f"{naive_per_minute:.0f}/min", None, how="http", note="one read, sent again 1 s after each failure")
        frames: list[float] = []
        rows: list[float] = []
        for _ in range(args.runs):
            frame, first_rows = first_frame(server)
            frames.append(frame)
            rows.append(first_rows)
            print(f"  3 s latency: first frame {frame:.2f} s, first rows {first_rows:.2f} s")
        met = max(frames) <= FIRST_FRAME_TARGET
        record("first frame at 3 s latency", f"≤ {FIRST_FRAME_TARGET} s", spread(frames), met, how="pty",
               note=f"one round trip before it (GET /user); rows at {spread(rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
