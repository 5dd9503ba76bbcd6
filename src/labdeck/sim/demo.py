"""Demo mode: a simulator with the seed-42 data on an ephemeral loopback port, real clock."""

from __future__ import annotations

from datetime import UTC, datetime

from labdeck.sim.core.clock import SimClock
from labdeck.sim.core.dialect import SPEC
from labdeck.sim.dataset.build import build_state
from labdeck.sim.server import SimServer


def start_demo(seed: int = 42, speed: float = 1.0, dialect: str = SPEC) -> SimServer:
    """Start (in a background thread) and return a running demo simulator; call ``.stop()`` when done.
    ``dialect`` is ``"spec"`` or ``"gitlab"`` (see :mod:`labdeck.sim.core.dialect`)."""
    # The demo's simulated time starts at the wall clock so that "5 min ago" reads naturally; the
    # data set is the same for a seed, only shifted in time (tests use a fixed epoch instead).
    start = datetime.now(UTC).replace(microsecond=0)
    state = build_state(seed=seed, clock=SimClock(mode="real", speed=speed, start=start), dialect=dialect,
                        rollout=True)
    return SimServer(state, host="127.0.0.1", port=0).start()
