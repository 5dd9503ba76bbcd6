"""A package's names come from their modules on first use: importing the package imports none of them."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest


def test_a_name_is_imported_from_its_module_on_first_use_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "lazy_sample"
    package.mkdir()
    (package / "__init__.py").write_text("from labdeck.base.lazy import lazy_exports\n"
                                         "__getattr__ = lazy_exports(__name__, {'Thing': 'things'}, globals())\n")
    (package / "things.py").write_text("Thing = object()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        sample = importlib.import_module("lazy_sample")
        assert "lazy_sample.things" not in sys.modules
        thing = sample.Thing
        assert "lazy_sample.things" in sys.modules and vars(sample)["Thing"] is thing
        with pytest.raises(AttributeError, match="has no attribute 'Other'"):
            sample.Other  # noqa: B018
    finally:
        sys.modules.pop("lazy_sample", None)
        sys.modules.pop("lazy_sample.things", None)


def test_the_models_package_loads_only_the_models_asked_for() -> None:
    import subprocess

    code = ("import sys; import labdeck.api.models as models; before = 'labdeck.api.models.issues' in sys.modules; "
            "models.Issue; print(before, 'labdeck.api.models.issues' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert done.stdout.split() == ["False", "True"]
