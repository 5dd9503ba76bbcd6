"""The shape of the house: the layering rules (nothing below ``ui`` imports textual or rich; the
simulator imports neither the client nor the UI: it must stay an independent reading of the spec),
no import circle anywhere in ``src/labdeck`` (imports inside functions and ``TYPE_CHECKING`` blocks
count), and one folder per section of the console."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "labdeck"
SCREENS = SRC / "ui" / "screens"

SECTIONS = ("board", "pipeline", "projects", "jobs", "runners", "issues", "integrations", "settings", "audit",
            "follow")
"""One folder each under ``ui/screens``."""
SHARED_SCREENS = {"__init__", "base", "table_section", "record_detail"}
"""The screen bases every section builds on: the only modules directly in ``ui/screens`` (the dialogs
they open are in ``ui/dialogs``)."""


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
            if name.startswith(("labdeck.api", "labdeck.ui", "labdeck.logtext")):
                offenders.append(f"{path.relative_to(SRC)} imports {name}")
    assert offenders == []


def test_headless_layers_load_without_textual() -> None:
    # rich itself may load here: httpx imports its optional command-line module (click, rich,
    # pygments) whenever those are installed. The AST test above covers our own imports.
    code = (
        "import sys, labdeck.api, labdeck.logtext, labdeck.sim.server, labdeck.base.config;"
        "bad=[m for m in sys.modules if m.split('.')[0] == 'textual'];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(path: Path, root: Path, modules: set[str]) -> Iterator[str]:
    """The modules of ``modules`` that ``path`` imports, wherever the import statement stands.

    ``from package import name`` imports the submodule ``package.name`` when there is one (and the
    package otherwise), as Python does."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def import_graph(root: Path = SRC) -> dict[str, set[str]]:
    """Module → the modules of ``root`` it imports."""
    paths = {_module_name(path, root): path for path in root.rglob("*.py")}
    modules = set(paths)
    return {name: set(_imported_modules(path, root, modules)) for name, path in paths.items()}


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import each other, directly or through others (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph)))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles


def test_no_import_circle_anywhere() -> None:
    assert import_circles(import_graph()) == []


def test_the_circle_check_sees_imports_inside_functions_and_type_checking_blocks(tmp_path: Path) -> None:
    package = tmp_path / "labdeck"
    (package / "ui").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "ui" / "__init__.py").write_text("")
    (package / "ui" / "app.py").write_text("from labdeck.ui import commands\n")
    (package / "ui" / "commands.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from labdeck.ui.app import App\n")
    (package / "ui" / "list.py").write_text("def open_detail():\n    from labdeck.ui.detail import Detail\n")
    (package / "ui" / "detail.py").write_text("from .list import open_detail\n")
    circles = import_circles(import_graph(package))
    assert circles == [["labdeck.ui.app", "labdeck.ui.commands"], ["labdeck.ui.detail", "labdeck.ui.list"]]


def test_each_section_of_the_console_is_a_folder() -> None:
    top_level = {path.stem for path in SCREENS.glob("*.py")}
    assert top_level == SHARED_SCREENS
    folders = {path.name for path in SCREENS.iterdir() if path.is_dir() and path.name != "__pycache__"}
    assert folders <= set(SECTIONS), f"unexpected screen folders: {sorted(folders - set(SECTIONS))}"
    for folder in folders:
        assert (SCREENS / folder / "__init__.py").is_file()


def test_every_wire_facts_citation_names_a_section_of_the_document() -> None:
    """Comments cite ``docs/wire-facts.md §N.M`` (the facts the code relies on, kept in the
    repository): each cited section must exist, so a citation never points at nothing."""
    repo = SRC.parents[1]
    document = (repo / "docs" / "wire-facts.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", document, flags=re.MULTILINE))
    cited: dict[str, list[str]] = {}
    for path in [*SRC.rglob("*.py"), *(repo / "tests").rglob("*.py"), *(repo / "bench").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"wire-facts\.md\s+((?:§[\d.]+[–,\s]*(?:and\s+)?)+)", text):
            for number in re.findall(r"§?(\d+(?:\.\d+)?)", match.group(1)):
                cited.setdefault(number, []).append(path.name)
    assert len(cited) >= 15  # the client, the simulator and the tests cite it throughout
    assert {number: files for number, files in cited.items() if number not in sections} == {}


def test_no_folder_groups_modules_by_name_prefix() -> None:
    """Three modules sharing a prefix (``ci_engine``, ``ci_model``, ``ci_queue``…) are a room that
    wants to be a folder."""
    crowded = {}
    for folder in [SRC, *(p for p in SRC.rglob("*") if p.is_dir() and p.name != "__pycache__")]:
        prefixes: dict[str, list[str]] = {}
        for module in folder.glob("*.py"):
            if module.stem not in ("__init__", "__main__"):
                prefixes.setdefault(module.stem.split("_")[0], []).append(module.stem)
        crowded.update({f"{folder.relative_to(SRC)}/{prefix}_*": sorted(names)
                        for prefix, names in prefixes.items() if len(names) >= 3})
    assert crowded == {}


def test_the_simulator_root_holds_only_its_entry_points() -> None:
    root_modules = sorted(path.stem for path in (SRC / "sim").glob("*.py"))
    assert len(root_modules) <= 8, root_modules


def _one_edit_apart(first: str, second: str) -> bool:
    if abs(len(first) - len(second)) > 1 or first == second:
        return False
    if len(first) == len(second):
        return sum(a != b for a, b in zip(first, second, strict=True)) == 1
    shorter, longer = sorted((first, second), key=len)
    return any(longer[:index] + longer[index + 1:] == shorter for index in range(len(longer)))


def test_no_two_packages_are_one_letter_apart() -> None:
    """``tail`` and ``trail`` were: a reader mistakes one for the other. (Two-letter abbreviations,
    ``ui`` and the simulator's ``ci``, are read as acronyms, not as words.)"""
    names = sorted({path.parent.name for path in SRC.rglob("__init__.py") if len(path.parent.name) > 2})
    close = [(a, b) for index, a in enumerate(names) for b in names[index + 1:] if _one_edit_apart(a, b)]
    assert close == []
    assert _one_edit_apart("tail", "trail") and not _one_edit_apart("audit", "auth")


def test_tests_mirror_the_tree() -> None:
    """Every section of ``ui/screens`` has a tests folder of the same name, and every room of
    ``src/labdeck`` has tests in the folder of the same name. (The simulator's HTTP routes are tested
    with the data they serve, in ``tests/sim/<room>/``.)"""
    tests = SRC.parents[1] / "tests"
    sections = sorted(path.name for path in SCREENS.iterdir() if (path / "__init__.py").exists())
    assert [name for name in sections if not list((tests / "ui" / "screens" / name).glob("test_*.py"))] == []
    untested = [package.parent.name for package in SRC.glob("*/__init__.py")
                if not list((tests / package.parent.name).rglob("test_*.py"))]
    assert untested == []
