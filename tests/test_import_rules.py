"""The layering rules of DEVELOPERS.md: nothing below ``ui`` imports textual or rich, and the
simulator imports neither the client nor the UI (it must stay an independent reading of the spec)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "labdeck"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[: -node.level])
                names.add(f"{package}.{node.module}" if node.module else package)
            elif node.module:
                names.add(node.module)
    return names


def test_only_ui_imports_textual_or_rich() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        if SRC / "ui" in path.parents:
            continue
        for name in _imports(path):
            if name.split(".")[0] in ("textual", "rich"):
                offenders.append(f"{path.relative_to(SRC)} imports {name}")
    assert offenders == []


def test_simulator_imports_neither_client_nor_ui() -> None:
    offenders = []
    for path in (SRC / "sim").rglob("*.py"):
        for name in _imports(path):
            if name.startswith(("labdeck.api", "labdeck.ui", "labdeck.tail")):
                offenders.append(f"{path.relative_to(SRC)} imports {name}")
    assert offenders == []


def test_headless_layers_load_without_textual() -> None:
    # rich itself may load here: httpx imports its optional command-line module (click, rich,
    # pygments) whenever those are installed. The AST test above covers our own imports.
    code = (
        "import sys, labdeck.api, labdeck.tail, labdeck.sim.server, labdeck.config;"
        "bad=[m for m in sys.modules if m.split('.')[0] == 'textual'];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
