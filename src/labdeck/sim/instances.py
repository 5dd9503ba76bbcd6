"""Several independent simulated instances at once (``labdeck serve --instances N``, the
two-instance demo, tests and benchmarks of a board over several profiles).

Instance ``i`` (0 is the first) has the seed ``seed + i``, its own dialect, its own clock, its own
port and its own demo tokens (:func:`labdeck.sim.core.accounts.instance_tokens`: a token of one
instance is refused by every other), and its own request log. Nothing is shared between them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from labdeck.sim.core.accounts import instance_tokens
from labdeck.sim.core.clock import DEFAULT_START, SimClock
from labdeck.sim.core.dialect import DIALECTS, SPEC
from labdeck.sim.core.state import SimState
from labdeck.sim.dataset.build import build_state
from labdeck.sim.server import SimServer


def instance_dialects(dialects: str | Sequence[str], count: int) -> list[str]:
    """One dialect per instance: ``"spec,gitlab"`` (or a list) names them in order, a single one
    applies to all. ValueError when a name is unknown or the count does not match."""
    names = [name.strip() for name in dialects.split(",")] if isinstance(dialects, str) else list(dialects)
    unknown = [name for name in names if name not in DIALECTS]
    if unknown or not names:
        raise ValueError(f"unknown dialect {', '.join(unknown) or '(none)'}: choose from {', '.join(DIALECTS)}")
    if len(names) == 1:
        return names * count
    if len(names) != count:
        raise ValueError(f"{len(names)} dialects for {count} instances: give one, or one per instance")
    return names


def build_instances(count: int, seed: int = 42, dialects: str | Sequence[str] = SPEC, *, clock_mode: str = "manual",
                    speed: float = 1.0, start: datetime | None = None, **options: Any) -> list[SimState]:
    """The states of ``count`` instances (see the module docstring); ``options`` go to
    :func:`labdeck.sim.dataset.build.build_state` (``projects``, ``rollout`` …) for every one."""
    if count < 1:
        raise ValueError("at least one instance")
    states: list[SimState] = []
    for index, dialect in enumerate(instance_dialects(dialects, count)):
        clock = SimClock(mode=clock_mode, speed=speed, start=start or DEFAULT_START)
        state = build_state(seed=seed + index, clock=clock, dialect=dialect, tokens=instance_tokens(index), **options)
        state.extra["instance"] = index + 1
        states.append(state)
    return states


def start_instances(count: int, seed: int = 42, dialects: str | Sequence[str] = SPEC, *, host: str = "127.0.0.1",
                    port: int = 0, clock_mode: str = "manual", speed: float = 1.0, start: datetime | None = None,
                    **options: Any) -> list[SimServer]:
    """Start ``count`` instances in background threads and return them, first instance first.

    ``port`` 0 gives each an ephemeral port, otherwise they listen on ``port``, ``port + 1`` …
    Each server's ``state.extra["demo_tokens"]`` holds its tokens (role → token), its request log is
    :func:`labdeck.sim.core.requests.request_log` of its state. RuntimeError when one cannot listen
    (those already started are stopped). Call ``.stop()`` on each when done.
    """
    states = build_instances(count, seed, dialects, clock_mode=clock_mode, speed=speed, start=start, **options)
    servers: list[SimServer] = []
    try:
        for index, state in enumerate(states):
            wanted = port + index if port else 0
            server = SimServer(state, host=host, port=wanted)
            try:
                server.start()
            except RuntimeError:
                raise RuntimeError(f"instance {index + 1} could not listen on {host}:{server.port}") from None
            servers.append(server)
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers


def demo_tokens(state: SimState) -> dict[str, str]:
    """The demo accounts' tokens (role → token) of an instance's state."""
    tokens = state.extra.get("demo_tokens")
    return dict(tokens) if isinstance(tokens, dict) else instance_tokens(0)
