"""All cases, one module per ecosystem."""

from __future__ import annotations

from case import Case

from jobs import heldout, heldout8, langs, more, native, node, others, python

CASES: list[Case] = [*python.CASES, *node.CASES, *native.CASES, *others.CASES, *more.CASES, *heldout.CASES,
                     *heldout8.CASES, *langs.CASES]
