"""One board over several instances (issue 30): each instance's own poller feeds its own snapshot,
and the board shows their rows merged, most urgent first whatever the instance, each row marked
with its instance. An instance in trouble (a refused token, a 502 storm, an outage) marks only its
own rows stale and says why; the others stay live.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from labdeck.ui.connection import trouble_text
from labdeck.ui.instances import Instance
from labdeck.watch import BoardSnapshot, BoardSubscription, PipelineRow, sort_by_attention
from labdeck.watch.ages import RowAges

_KEPT = (" (last rows kept, stale)", " (stale)", " (stale)", "")
"""What an instance in trouble says of its rows, at each shortening of the header."""


@dataclass
class MergedBoard:
    """The snapshots of every instance, and the subscriptions that bring them."""

    instances: list[Instance]
    on_update: Callable[[], None]
    snapshots: dict[int, BoardSnapshot] = field(default_factory=dict)
    """Instance index → its latest snapshot."""
    owners: dict[int, Instance] = field(default_factory=dict)
    """``id(row)`` → the instance of each row of :attr:`snapshot`."""
    snapshot: BoardSnapshot = field(default_factory=BoardSnapshot)
    _subscriptions: list[BoardSubscription] = field(default_factory=list)
    _troubled: frozenset[int] = frozenset()

    def subscribe(self) -> None:
        """Follow every instance's board (each on its own poller, budget and back-off)."""
        for instance in self.instances:
            assert instance.watching is not None, "the console is not mounted yet"
            self._subscriptions.append(instance.watching.subscribe_board(self._receiver(instance)))

    def _receiver(self, instance: Instance) -> Callable[[BoardSnapshot], None]:
        def received(snapshot: BoardSnapshot) -> None:
            self.snapshots[instance.index] = snapshot
            self._merge()
            self.on_update()

        return received

    def _merge(self) -> None:
        owners: dict[int, Instance] = {}
        rows: list[PipelineRow] = []
        for instance in self.instances:
            snapshot = self.snapshots.get(instance.index)
            if snapshot is None:
                continue
            for row in snapshot.rows:
                owners[id(row)] = instance
                rows.append(row)
        snapshots = list(self.snapshots.values())
        self.owners = owners
        self.snapshot = BoardSnapshot(
            rows=tuple(sort_by_attention(rows)),
            broken=sum(snapshot.broken for snapshot in snapshots),
            loading=sum(snapshot.loading for snapshot in snapshots),
            generation=sum(snapshot.generation for snapshot in snapshots),
            watched=self.snapshots[0].watched if 0 in self.snapshots else None,
        )

    # --- the subscriptions, all at once -------------------------------------------------------

    def set_visible(self, visible: bool) -> None:
        """Shown or hidden: every instance's board reads, or none does."""
        for subscription in self._subscriptions:
            subscription.set_visible(visible)

    def close(self) -> None:
        """The board is gone."""
        for subscription in self._subscriptions:
            subscription.close()

    def relist(self) -> None:
        """``ctrl+r``: every instance lists its watched projects again; one in trouble tries again
        now rather than at the end of its back-off (up to a minute after the trouble is over)."""
        for instance in self.instances:
            instance.client.try_now()
        for subscription in self._subscriptions:
            subscription.relist()

    def changed(self, instance: Instance | None = None) -> None:
        """Read again now: ``instance``'s projects (a change sent there), or every instance's."""
        for index, subscription in enumerate(self._subscriptions):
            if instance is None or self.instances[index] is instance:
                subscription.changed()

    # --- what each instance says --------------------------------------------------------------

    def owner(self, row: PipelineRow) -> Instance:
        """The instance a row of :attr:`snapshot` comes from."""
        return self.owners.get(id(row), self.instances[0])

    def ages(self) -> dict[int, RowAges]:
        """Each instance's row ages (its own poller's reads)."""
        return {instance.index: instance.watching.poller.row_ages()
                for instance in self.instances if instance.watching is not None}

    def stale(self, row: PipelineRow, ages: dict[int, RowAges]) -> bool:
        """Older than its class allows, or its instance is in trouble (its last rows are kept)."""
        instance = self.owner(row)
        found = ages.get(instance.index)
        return self.trouble(instance) is not None or (found is not None and found.stale(row))

    @staticmethod
    def trouble(instance: Instance, *, countdown: bool = True) -> str | None:
        """What the instance's server answered when it is in trouble (``token refused (401)``);
        ``countdown``: add when its client tries again."""
        health = getattr(instance.client, "health", None)
        text = trouble_text(health, countdown=countdown)
        if text is None and getattr(health, "state", "ok") != "ok":
            # Between two tries of an outage (no countdown to show): still in trouble, not live.
            text = getattr(health, "reason", None) or "offline"
        freshness = instance.watching.freshness() if instance.watching is not None else None
        return text or (freshness.error if freshness is not None else None)

    def trouble_moved(self) -> bool:
        """True when an instance went into trouble or came out of it since the last call: its rows'
        stale marks change now, not at the next age tick (a frozen clock has none)."""
        troubled = frozenset(instance.index for instance in self.instances if self.trouble(instance) is not None)
        moved, self._troubled = troubled != self._troubled, troubled
        return moved

    def freshness_label(self, rows: Iterable[PipelineRow]) -> tuple[str, bool]:
        """The status line's ``prod oldest <10s · staging token refused (401)`` and whether any is stale."""
        ages = self.ages()
        shown = list(rows)
        parts: list[str] = []
        stale = False
        for instance in self.instances:
            trouble = self.trouble(instance)
            if trouble is not None:
                parts.append(f"{instance.short} {trouble}")
                stale = True
                continue
            assert instance.watching is not None
            freshness = instance.watching.freshness()
            own = [row for row in shown if self.owner(row) is instance]
            found = ages.get(instance.index)
            if own and found is not None and found.oldest(own) is not None:
                parts.append(f"{instance.short} {found.label(own)}")
                stale = stale or any(found.stale(row) for row in own)
            else:
                parts.append(f"{instance.short} {freshness.label}")
                stale = stale or freshness.is_stale
        return " · ".join(parts), stale

    def context(self, rows: list[PipelineRow], *, width: int | None = None, extra: tuple[str, ...] = ()) -> str:
        """The board's header over several instances: each instance's state, the counts, then
        ``extra`` (the filter, the alerts). ``width``: the cells it has; when the whole does not fit,
        decoration goes first (``last rows kept``, ``watched``, the healthy instances' project
        counts: their rows and the status line say as much), never an instance's reason nor the
        counts of failed and running pipelines."""
        text = self._context_parts(rows, extra, short=0)
        for short in range(1, 4):
            if width is None or len(text) <= width:
                break
            text = self._context_parts(rows, extra, short=short)
        return text

    def _context_parts(self, rows: list[PipelineRow], extra: tuple[str, ...], *, short: int) -> str:
        """The header at shortening ``short``: 0 whole; 1 ``(stale)`` for ``(last rows kept,
        stale)``; 2 without ``watched``; 3 without the healthy instances' counts nor ``(stale)``."""
        parts: list[str] = []
        for instance in self.instances:
            snapshot = self.snapshots.get(instance.index)
            # Without the countdown (the status line has it): the counts after it stay in 120 columns.
            trouble = self.trouble(instance, countdown=False)
            if trouble is not None:
                kept = snapshot is not None and bool(snapshot.rows)
                note = _KEPT[short] if kept else ""
                parts.append(f"{instance.short}: {trouble}{note}")
                continue
            assert instance.watching is not None
            freshness = instance.watching.freshness()
            if snapshot is None or (freshness.last_complete_at is None and (snapshot.loading or not snapshot.rows)):
                loading = f" {snapshot.loading}" if snapshot is not None and snapshot.loading else "…"
                parts.append(f"{instance.short}: loading{loading}")
                continue
            if short < 3:
                watched = len(snapshot.watched.projects) if snapshot.watched is not None else 0
                parts.append(f"{instance.short} {watched}")
        if short < 2 and parts and not parts[-1].startswith(tuple(f"{i.short}:" for i in self.instances)):
            parts[-1] += " watched"
        broken = self.snapshot.broken
        parts.append(f"{broken} failed" if broken else "nothing failing")
        parts.append(f"{sum(1 for row in rows if row.status == 'running')} running")
        return " · ".join((*parts, *extra))


__all__ = ["MergedBoard"]
