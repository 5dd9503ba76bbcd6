"""All cases, one module per ecosystem."""

from __future__ import annotations

from case import Case

from jobs import holdout, holdout2, holdout3, more, native, node, others, python

CASES: list[Case] = [*python.CASES, *node.CASES, *native.CASES, *others.CASES, *more.CASES, *holdout.CASES, *holdout2.CASES, *holdout3.CASES]
