"""The board's triage rounds: why its failed pipelines failed, one round at a time per instance.

A new round is asked for when the board's failures change; a round under way is never cancelled
(its reads are paid), a newer ask cuts only its older failures short (:meth:`Triaging.round`).
A round that ended on an error is asked for again: after a token refused, once another client is
in place (a sign-in), after any other error :data:`TRIAGE_RETRY` seconds later.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any

from labdeck.api import ApiClient, errors
from labdeck.api.models import Job
from labdeck.ui.instances import Instance, primary_triaging
from labdeck.ui.screens.board.merged import MergedBoard
from labdeck.watch import PipelineRow

TRIAGE_GAP = 2.0
"""Seconds between two triage rounds when failures keep changing (each reads the projects' jobs pages)."""
TRIAGE_RETRY = 30.0
"""Seconds before a triage round that ended on an error (other than a token refused) is tried again."""


class BoardTriage:
    """The triage rounds of one board (per instance: -1 is a board of one, else the instance's index)."""

    def __init__(self, app: Callable[[], Any], run: Callable[[Callable[[], Awaitable[None]], str], object],
                 merged: Callable[[], MergedBoard | None], own_client: Callable[[], ApiClient]) -> None:
        """``app()``: the console; ``run(work, name)``: runs ``work`` in the board's worker ``name`` (errors to the app's
        handler); ``merged()``: the board's instances when it shows several; ``own_client()``:
        the console's client (read at each round: a sign-in replaces it)."""
        self._app = app
        self._run = run
        self._merged = merged
        self._own_client = own_client
        self._asked_key: tuple[object, ...] | None = None
        self._wanted: dict[int, tuple[list[tuple[int, str]], list[tuple[int, str, Job]]]] = {}
        """What each instance's next round is asked about."""
        self._busy: set[int] = set()
        """Instances whose rounds are under way."""
        self._failed: dict[int, tuple[float, ApiClient, bool]] = {}
        """Instance → when its last round ended on an error, on which client, whether the token was refused."""

    def ask(self, failed: list[tuple[PipelineRow, Job]], key: tuple[object, ...]) -> None:
        """Work out the verdicts of ``failed`` (rows and the jobs that fail them; ``key`` says
        which), in the ``triage`` worker(s): one jobs page per project with a failure, logs only
        where ``failure_reason`` does not explain it. Nothing new when they did not change."""
        again = self._due_again()
        if not failed or (key == self._asked_key and not again):
            return
        unchanged, self._asked_key = key == self._asked_key, key
        # Several instances: each instance's failures are worked out on its own client, budget and
        # verdicts (job ids of two instances may be the same number), in a worker of its own.
        merged = self._merged()
        for instance in merged.instances if merged is not None else (None,):
            own = failed if merged is None else [(row, job) for row, job in failed if merged.owner(row) is instance]
            index = -1 if instance is None else instance.index
            if not own or (unchanged and index not in again):
                continue
            self._failed.pop(index, None)
            self._wanted[index] = (sorted({(row.project_id, row.project_path) for row, _ in own}),
                                   [(row.project_id, row.project_path, job) for row, job in own])
            if index not in self._busy:
                self._busy.add(index)
                self._run(functools.partial(self._rounds, instance),
                          "triage" if instance is None else f"triage-{index}")

    async def _rounds(self, instance: Instance | None) -> None:
        """One round at a time, never cancelled half-way; again (after a pause) while the failures
        changed meanwhile or a round left verdicts for the next. (A round cancelled by the next
        update had paid its reads for nothing: over two instances rounds restarted with every
        page of the first board round, and spent the budget the rest of the board was waiting for.)"""
        index = -1 if instance is None else instance.index
        state = primary_triaging(self._app(), instance)
        wanted = self._wanted
        try:
            while (asked := wanted.pop(index, None)) is not None:
                # A newer ask (more rows loaded, a failure more) cuts this round's older failures
                # short: the rows on screen are worked out first, the clusters after.
                await state.round(self._client(instance), *asked, cut_short=lambda: index in wanted)
                if state.missing and index not in wanted:
                    wanted[index] = asked
                if index in wanted:
                    await asyncio.sleep(TRIAGE_GAP)
        except errors.ApiError as exc:
            # Asked again (see _due_again): after a sign-in the failures were the same, so no round
            # was, and the Why cells stayed … for good.
            self._failed[index] = (time.monotonic(), self._client(instance), isinstance(exc, errors.Unauthorized))
            raise
        finally:
            self._busy.discard(index)

    def _client(self, instance: Instance | None) -> ApiClient:
        return instance.client if instance is not None else self._own_client()

    def _due_again(self) -> set[int]:
        """The instances whose last round ended on an error and may be tried again now: after a
        token refused, once another client is in place (a sign-in; not before, or each snapshot
        would ask again and bring the sign-in dialog back); after any other error,
        :data:`TRIAGE_RETRY` seconds later."""
        merged = self._merged()
        instances = {instance.index: instance for instance in merged.instances} if merged is not None else {}
        due: set[int] = set()
        for index, (at, client, refused) in self._failed.items():
            if self._client(instances.get(index)) is not client or (
                    not refused and time.monotonic() - at >= TRIAGE_RETRY):
                due.add(index)
        return due
