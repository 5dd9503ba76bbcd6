"""Triage tests against the simulator run in both dialects (the sim tests' ``dialect`` fixture)."""

from __future__ import annotations

from tests.sim.conftest import dialect

__all__ = ["dialect"]
