"""``labdeck serve``: run the simulator in the foreground until Ctrl-C.

    labdeck serve [--host 127.0.0.1] [--port 8929] [--seed 42] [--speed 1.0] [--clock real|manual]
                  [--trace-range] [--faults SPEC] [--projects N] [--dialect spec|gitlab]

It prints the base URL, then one line per demo account (role, username, token): these are the
fixed, documented demo tokens of :mod:`labdeck.sim.dataset.build`, not secrets.
"""

from __future__ import annotations

import argparse
import socket
import sys
from typing import TextIO

import uvicorn

from labdeck.sim.core.clock import SimClock
from labdeck.sim.core.dialect import DIALECTS, GITLAB, SPEC
from labdeck.sim.core.faults import FaultConfig, set_config
from labdeck.sim.core.state import SimState
from labdeck.sim.dataset.build import DEMO_TOKENS, DEMO_USERS, build_state
from labdeck.sim.server import create_app

_ROLE_LABELS = {"admin": "admin", "user": "user", "readonly": "read-only"}


def _speed(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("speed must be positive")
    return value


def _faults(text: str) -> FaultConfig:
    try:
        return FaultConfig.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="labdeck serve", description="Run the GitLab API simulator.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8929, help="port (default 8929; 0 picks a free one)")
    parser.add_argument("--seed", type=int, default=42, help="data set seed (default 42)")
    parser.add_argument("--speed", type=_speed, default=1.0, help="simulated seconds per real second")
    parser.add_argument("--clock", choices=("real", "manual"), default="real",
                        help="real (scaled by --speed) or manual (POST /-/sim/clock/advance)")
    parser.add_argument("--trace-range", action="store_true",
                        help="honour HTTP Range on job traces (real GitLab does not)")
    parser.add_argument("--faults", type=_faults, default=None, metavar="SPEC",
                        help="e.g. latency=100,error_rate=0.1,rate_limit=0.05,retry_after=2,retry_after_format=date")
    parser.add_argument("--projects", type=int, default=0, metavar="N", help="pad the data set to N projects")
    parser.add_argument("--dialect", choices=DIALECTS, default=SPEC,
                        help="spec: the shared spec (GitLab 10.x/11.x, default); gitlab: current GitLab (18.x)")
    parser.add_argument("--rollout", action="store_true",
                        help="add a live six-region deploy stage (one region fails half-way) to follow with F")
    return parser


def prepare_state(args: argparse.Namespace) -> SimState:
    """The state ``labdeck serve`` will serve, from parsed arguments."""
    state = build_state(seed=args.seed, clock=SimClock(mode=args.clock, speed=args.speed), projects=args.projects,
                        dialect=args.dialect, rollout=args.rollout)
    state.extra["trace_range"] = bool(args.trace_range)
    if args.faults is not None:
        set_config(state, args.faults)
    return state


def print_banner(base_url: str, out: TextIO, dialect: str = SPEC) -> None:
    """The base URL and dialect, then ``<role> <username> <token>`` per demo account."""
    graphql = f", GraphQL: {base_url}/api/graphql" if dialect == GITLAB else ""
    print(f"labdeck simulator listening on {base_url}  (API: {base_url}/api/v4{graphql}, dialect: {dialect})",
          file=out)
    for role in ("admin", "user", "readonly"):
        print(f"  {_ROLE_LABELS[role]:<10} {DEMO_USERS[role]:<8} token: {DEMO_TOKENS[role]}", file=out)
    print("Press Ctrl-C to stop.", file=out, flush=True)


def serve_main(argv: list[str] | None = None) -> int:
    """Entry point of ``labdeck serve``; returns the process exit code."""
    args = build_parser().parse_args(argv)
    state = prepare_state(args)
    config = uvicorn.Config(create_app(state), host=args.host, port=args.port, log_level="warning",
                            access_log=False, lifespan="off", date_header=False)
    server = uvicorn.Server(config)
    host = f"[{args.host}]" if ":" in args.host else args.host

    original_startup = server.startup

    async def startup(sockets: list[socket.socket] | None = None) -> None:
        await original_startup(sockets=sockets)
        port = args.port
        for listener in getattr(server, "servers", []) or []:
            for sock in listener.sockets:
                port = sock.getsockname()[1]
                break
        state.base_url = f"http://{host}:{port}"
        print_banner(state.base_url, sys.stdout, args.dialect)

    server.startup = startup  # type: ignore[method-assign]
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    except SystemExit:  # uvicorn exits when it cannot bind
        print(f"labdeck serve: could not listen on {host}:{args.port}", file=sys.stderr)
        return 1
    return 0 if server.started else 1
