"""The layer contracts of ``pyproject.toml`` (import-linter, run by ``make lint``): the tree keeps them,
and an upward import put back into a copy of the tree breaks them, naming the import."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(src: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--config", str(REPO / "pyproject.toml")],
                          cwd=src, env=env, capture_output=True, text=True, timeout=120, check=False)


def _copy_of_the_tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(REPO / "src" / "labdeck", src / "labdeck", ignore=shutil.ignore_patterns("__pycache__"))
    return src


pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is installed by `make lint`")


def test_the_tree_keeps_every_layer_contract(tmp_path: Path) -> None:
    result = _lint_imports(_copy_of_the_tree(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("module", "upward", "contract"), [
    # The client importing the UI, or the audit log again (it is handed its recorder instead).
    ("api/core.py", "import labdeck.ui.app", "One layer per room"),
    ("api/client.py", "from labdeck.audit.log import AuditLog", "handed its change recorder"),
    # Log text doing HTTP through the client again.
    ("logtext/lines.py", "import labdeck.api.client", "One layer per room"),
    # A simulator data module importing a route.
    ("sim/dataset/issues.py", "import labdeck.sim.routes.notifications", "data never imports a route"),
    # The simulator reading the client instead of the spec.
    ("sim/core/http.py", "import labdeck.api.errors", "reads the spec independently"),
    # A widget importing a dialog, a dialog importing a section's screen.
    ("ui/widgets/cells.py", "import labdeck.ui.dialogs.confirm", "widgets hold widgets only"),
    ("ui/dialogs/confirm.py", "import labdeck.ui.screens.jobs.list", "UI rooms"),
])
def test_an_upward_import_breaks_a_contract(tmp_path: Path, module: str, upward: str, contract: str) -> None:
    src = _copy_of_the_tree(tmp_path)
    target = src / "labdeck" / module
    target.write_text(target.read_text() + "\n" + upward + "\n")
    result = _lint_imports(src)
    assert result.returncode != 0
    broken = [line for line in result.stdout.splitlines() if line.endswith("BROKEN")]
    assert any(contract in line for line in broken), result.stdout
    importer = "labdeck." + module.removesuffix(".py").replace("/", ".")
    assert importer in result.stdout  # the report names the offending import
