"""The corpus of real failing CI logs in ``tests/logtext/corpus/``: each ``<tool>/<case>.log`` with
its sidecar ``<case>.json`` naming the block a person should read first (1-based, inclusive lines,
counted by ``\\n``), the CI framing around the tool's output, and, for some cases, the log of the
same job once it passed (``<case>.pass.log``).

The logs were made by running the real tools on small failing projects (``corpus/make/``); see
``corpus/README.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "logtext" / "corpus"
FRAMINGS = ("gitlab", "github", "travis", "jenkins", "plain")


@dataclass(frozen=True)
class CorpusCase:
    """One failing log and what a person should read first in it."""

    path: Path
    tool: str
    framing: str
    line: int
    end: int
    kind: str
    cause: str
    text: str
    passing_text: str | None

    @property
    def name(self) -> str:
        """``<tool>/<case>``, for test ids and messages."""
        return f"{self.path.parent.name}/{self.path.stem}"

    def block(self) -> list[str]:
        """The expected block's lines (split on ``\\n`` only, as the line numbers are counted)."""
        return self.text.split("\n")[self.line - 1 : self.end]


GENERATOR = "make"
"""The folder of the generator and its projects (so the tool ``make`` is filed as ``gnu-make``)."""


def corpus_logs(root: Path = CORPUS) -> list[Path]:
    """Every failing log of the corpus (not the passing ones), sorted."""
    return sorted(p for p in root.glob("*/*.log")
                  if not p.name.endswith(".pass.log") and p.parent.name != GENERATOR)


def load_case(path: Path) -> CorpusCase:
    """One case from its log and sidecar; the passing log is read when the sidecar names one."""
    meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    passing = meta.get("passing")
    passing_text = None
    if passing:
        passing_text = (path.parent / passing).read_bytes().decode("utf-8", errors="replace")
    return CorpusCase(
        path=path,
        tool=meta["tool"],
        framing=meta["framing"],
        line=int(meta["line"]),
        end=int(meta["end"]),
        kind=meta["kind"],
        cause=meta["cause"],
        text=path.read_bytes().decode("utf-8", errors="replace"),
        passing_text=passing_text,
    )


def load_corpus(root: Path = CORPUS) -> list[CorpusCase]:
    """All cases of the corpus, sorted by tool and case name (a log without its sidecar is left out:
    ``test_corpus_files`` reports it)."""
    return [load_case(path) for path in corpus_logs(root) if path.with_suffix(".json").is_file()]
