"""All cases, one module per ecosystem."""

from __future__ import annotations

from case import Case

from jobs import heldout, langs, more, native, node, others, python

CASES: list[Case] = [*python.CASES, *node.CASES, *native.CASES, *others.CASES, *more.CASES, *heldout.CASES, *langs.CASES]
