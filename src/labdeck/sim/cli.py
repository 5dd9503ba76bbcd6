"""``labdeck serve``: run the simulator in the foreground until Ctrl-C.

    labdeck serve [--host 127.0.0.1] [--port 8929] [--seed 42] [--speed 1.0] [--clock real|manual]
                  [--trace-range] [--faults SPEC] [--projects N] [--dialect spec|gitlab]
                  [--instances N] [--log-requests]

It prints the base URL, then one line per demo account (role, username, token): these are the
fixed, documented demo tokens of :mod:`labdeck.sim.dataset.build`, not secrets.

``--instances N`` serves N independent instances (:mod:`labdeck.sim.instances`): consecutive ports
from ``--port`` (or ephemeral ones with ``--port 0``), seeds ``--seed``, ``--seed + 1`` …, one
dialect each (``--dialect spec,gitlab``) or one for all, and tokens of their own; the banner is
printed once per instance. ``--log-requests`` prints each request as it is answered (prefixed by
the instance's number when there are several).
"""

from __future__ import annotations

import argparse
import signal
import socket
import sys
import threading
from typing import TextIO

import uvicorn

from labdeck.sim.core.clock import SimClock
from labdeck.sim.core.dialect import DIALECTS, GITLAB, SPEC, dialect_of
from labdeck.sim.core.faults import FaultConfig, set_config
from labdeck.sim.core.requests import request_log
from labdeck.sim.core.state import SimState
from labdeck.sim.dataset.build import DEMO_TOKENS, DEMO_USERS, build_state
from labdeck.sim.instances import build_instances, demo_tokens, instance_dialects
from labdeck.sim.server import SimServer, create_app

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


def _dialects(text: str) -> str:
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in DIALECTS]
    if unknown:
        raise argparse.ArgumentTypeError(f"invalid choice: {', '.join(map(repr, unknown))} "
                                         f"(choose from {', '.join(DIALECTS)})")
    return ",".join(names)


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("at least one instance")
    return value


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
    parser.add_argument("--dialect", type=_dialects, default=SPEC, metavar="{spec,gitlab}",
                        help="spec: the shared spec (GitLab 10.x/11.x, default); gitlab: current GitLab (18.x); "
                             "with --instances, one per instance (spec,gitlab) or one for all")
    parser.add_argument("--instances", type=_count, default=1, metavar="N",
                        help="serve N independent instances (ports from --port on, seeds from --seed on, "
                             "tokens of their own)")
    parser.add_argument("--log-requests", action="store_true",
                        help="print every request as it is answered (method, path, status, account)")
    parser.add_argument("--rollout", action="store_true",
                        help="add a live six-region deploy stage (one region fails half-way) to follow with F")
    return parser


def prepare_state(args: argparse.Namespace) -> SimState:
    """The state ``labdeck serve`` will serve, from parsed arguments."""
    state = build_state(seed=args.seed, clock=SimClock(mode=args.clock, speed=args.speed), projects=args.projects,
                        dialect=args.dialect, rollout=args.rollout)
    _apply_options(state, args)
    return state


def prepare_instances(args: argparse.Namespace) -> list[SimState]:
    """The states of ``labdeck serve --instances N``, from parsed arguments (ValueError when the
    dialects do not fit the count)."""
    states = build_instances(args.instances, args.seed, instance_dialects(args.dialect, args.instances),
                             clock_mode=args.clock, speed=args.speed, projects=args.projects, rollout=args.rollout)
    for state in states:
        _apply_options(state, args)
    return states


def _apply_options(state: SimState, args: argparse.Namespace) -> None:
    state.extra["trace_range"] = bool(args.trace_range)
    if args.faults is not None:
        set_config(state, args.faults)
    if getattr(args, "log_requests", False):
        log = request_log(state)
        log.echo = sys.stdout
        log.label = str(state.extra["instance"]) if "instance" in state.extra else ""


def print_banner(base_url: str, out: TextIO, dialect: str = SPEC, *, tokens: dict[str, str] | None = None,
                 title: str = "labdeck simulator", footer: bool = True) -> None:
    """The base URL and dialect, then ``<role> <username> <token>`` per demo account (``tokens``:
    the instance's own, :data:`DEMO_TOKENS` by default)."""
    graphql = f", GraphQL: {base_url}/api/graphql" if dialect == GITLAB else ""
    print(f"{title} listening on {base_url}  (API: {base_url}/api/v4{graphql}, dialect: {dialect})",
          file=out)
    for role in ("admin", "user", "readonly"):
        token = (tokens or DEMO_TOKENS)[role]
        print(f"  {_ROLE_LABELS[role]:<10} {DEMO_USERS[role]:<8} token: {token}", file=out)
    if footer:
        print("Press Ctrl-C to stop.", file=out, flush=True)


def serve_main(argv: list[str] | None = None) -> int:
    """Entry point of ``labdeck serve``; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.instances > 1:
        return _serve_instances(parser, args)
    if "," in args.dialect:
        parser.error("several dialects need as many --instances")
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


def _serve_instances(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--instances N``: every instance in a thread of its own until Ctrl-C (or SIGTERM)."""
    try:
        states = prepare_instances(args)
    except ValueError as error:
        parser.error(str(error))
    servers: list[SimServer] = []
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        for index, state in enumerate(states):
            wanted = args.port + index if args.port else 0
            server = SimServer(state, host=args.host, port=wanted)
            try:
                server.start()
            except RuntimeError:
                print(f"labdeck serve: instance {index + 1} could not listen on {args.host}:{server.port}",
                      file=sys.stderr)
                return 1
            servers.append(server)
        print(f"labdeck simulator: {len(servers)} instances, each with its own data, dialect and tokens "
              "(a token of one is refused by the others)", file=sys.stdout)
        for index, server in enumerate(servers):
            state = server.state
            print_banner(server.base_url, sys.stdout, dialect_of(state), tokens=demo_tokens(state),
                         title=f"instance {index + 1} (seed {state.extra['seed']})", footer=False)
        print("Press Ctrl-C to stop.", file=sys.stdout, flush=True)
        try:
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        for server in servers:
            server.stop()
