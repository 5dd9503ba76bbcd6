"""The console's state file: atomic, private, and never fatal when damaged."""

from __future__ import annotations

import os
import stat

from labdeck.base import paths
from labdeck.base.statefile import StateStore


def test_state_round_trips_privately() -> None:
    store = StateStore()
    store.save({"last_profile": "work", "history": [":jobs group/app"]})
    assert store.load() == {"last_profile": "work", "history": [":jobs group/app"]}
    assert store.path == paths.state_file()
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert [p.name for p in store.path.parent.iterdir()] == ["state.json"]  # no temp files left


def test_drafts_survive_until_dropped() -> None:
    store = StateStore()
    store.update(last_profile="lab")
    store.save_draft("issue:g/p:new", "Title\n\nbody typed so far")
    assert StateStore().drafts() == {"issue:g/p:new": "Title\n\nbody typed so far"}
    store.drop_draft("issue:g/p:new")
    assert store.drafts() == {} and store.load()["last_profile"] == "lab"


def test_a_corrupt_state_file_is_moved_aside_and_defaults_are_used() -> None:
    store = StateStore()
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_text('{"last_profile": "wo')
    assert store.load() == {}
    aside = [p.name for p in store.path.parent.iterdir() if p.name.startswith("state.json.corrupt-")]
    assert len(aside) == 1
    store.save({"last_profile": "x"})
    assert store.load() == {"last_profile": "x"}
