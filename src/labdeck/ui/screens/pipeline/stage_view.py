"""The widget of the pipeline view: the stages of one pipeline (see :mod:`.stage_columns`) with a
cursor on a job or on a folded stage, and marks on jobs.

``h``/``l`` move between stages, ``j``/``k`` between items (in a column in the column layout,
through the whole list otherwise). The layout depends on the width (columns or list) and on the
height (which stages fold), so a resize lays it out again and the cursor follows its item: a job
whose stage folds puts the cursor on the stage, a stage that unfolds puts it on its first job.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from labdeck.api.models import Job
from labdeck.ui.screens.pipeline.columns import Item, Layout, Stage, layout, palette_for


class StageView(VerticalScroll, can_focus=True):
    """The stages of one pipeline with a cursor (``h``/``l`` stages, ``j``/``k`` items)."""

    BINDING_GROUP_TITLE = "Pipeline"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(0, -1)", "Up", show=False, id="pipeline.up"),
        Binding("down,j", "move(0, 1)", "Down", show=False, id="pipeline.down"),
        Binding("left,h", "move(-1, 0)", "Previous stage", show=False, id="pipeline.left"),
        Binding("right,l", "move(1, 0)", "Next stage", show=False, id="pipeline.right"),
        Binding("home,g", "edge(-1)", "First job", show=False, id="pipeline.first"),
        Binding("end,G", "edge(1)", "Last job", show=False, id="pipeline.last"),
    ]
    DEFAULT_CSS = """
    StageView { height: 1fr; scrollbar-size-vertical: 1; }
    StageView > Static { width: 100%; height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.stages: list[Stage] = []
        """The stages shown (after the filter)."""
        self.cursor: Item | None = None
        """The job (id) or folded stage (name) under the cursor."""
        self.marked: set[int] = set()
        self.why: dict[int, str] = {}
        """Failed job id → its triage verdict (``infra``, ``broken since #12``…; ``…`` until known)."""
        self.partial = False
        """True while the pipeline's jobs are still being read (no stage status is derived)."""
        self.current: Layout | None = None
        self._moved = False
        """Once the user moved the cursor it stays on its item; before, it keeps to the first item
        (stages appear above it while the pages arrive)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="stage-lines")

    # --- content -------------------------------------------------------------------------------

    def release(self) -> None:
        """Forget the stages and their laid-out lines (the pipeline view closes)."""
        self.stages = []
        self.cursor = None
        self.marked = set()
        self.why = {}
        self.current = None

    def show(self, stages: Sequence[Stage], *, partial: bool = False) -> None:
        """Show ``stages``; the cursor stays on the same item (a job's newest try, or its stage)."""
        previous = self.cursor_job
        self.stages = list(stages)
        self.partial = partial
        if not self._moved:
            self.cursor = None
        if previous is not None and self.cursor not in self._job_ids():
            same = [job for stage in self.stages for job in stage.jobs if job.name == previous.name]
            if same:
                self.cursor = same[0].id
        self.redraw()

    def _job_ids(self) -> set[int]:
        return {job.id for stage in self.stages for job in stage.jobs}

    @property
    def cursor_job(self) -> Job | None:
        """The job under the cursor (None on a folded stage)."""
        if not isinstance(self.cursor, int):
            return None
        for stage in self.stages:
            for job in stage.jobs:
                if job.id == self.cursor:
                    return job
        return None

    @property
    def cursor_stage(self) -> Stage | None:
        """The stage under the cursor: the folded stage, or the stage of the job."""
        for stage in self.stages:
            if stage.name == self.cursor or any(job.id == self.cursor for job in stage.jobs):
                return stage
        return None

    @property
    def folded_cursor(self) -> Stage | None:
        """The folded stage under the cursor, if the cursor is on one."""
        if isinstance(self.cursor, str):
            return next((stage for stage in self.stages if stage.name == self.cursor), None)
        return None

    def redraw(self) -> None:
        """Lay the stages out again (size, cursor, marks, theme or data changed)."""
        if not self.is_mounted:
            return
        width = self.scrollable_content_region.width or self.size.width or self.app.size.width
        height = self.scrollable_content_region.height or self.size.height or max(self.app.size.height - 6, 1)
        palette = palette_for(self.app)
        current = layout(self.stages, width, palette, cursor=self.cursor, marked=self.marked, height=height,
                         partial=self.partial, why=self.why)
        cursor = self._follow(current)
        if cursor != self.cursor:
            self.cursor = cursor
            current = layout(self.stages, width, palette, cursor=cursor, marked=self.marked, height=height,
                             partial=self.partial, why=self.why)
        self.current = current
        self.query_one("#stage-lines", Static).update(Text("\n").join(current.lines))
        self.call_after_refresh(self._scroll_to_cursor)

    def _follow(self, current: Layout) -> Item | None:
        """Where the cursor goes in ``current``: its item, else the item that now holds it."""
        if self.cursor in current.spans:
            return self.cursor
        for stage, items in zip(self.stages, current.items, strict=False):
            if stage.name == self.cursor or any(job.id == self.cursor for job in stage.jobs):
                return items[0] if items else None
        return next((items[0] for items in current.items if items), None)

    def _scroll_to_cursor(self) -> None:
        if self.current is None or self.cursor not in self.current.spans:
            return
        first, count = self.current.spans[self.cursor]
        height = self.scrollable_content_region.height
        if first - 1 < self.scroll_y:
            self.scroll_to(y=max(first - 1, 0), animate=False)  # the stage heading stays in view
        elif first + count > self.scroll_y + height:
            self.scroll_to(y=first + count - height, animate=False)

    def on_resize(self, event: events.Resize) -> None:
        """Columns or list, and which stages fold, for the new size."""
        self.redraw()

    # --- cursor --------------------------------------------------------------------------------

    def _items(self) -> list[list[Item]]:
        return self.current.items if self.current is not None else []

    def _position(self) -> tuple[int, int]:
        for number, items in enumerate(self._items()):
            if self.cursor in items:
                return number, items.index(self.cursor)
        return 0, 0

    def action_move(self, stages: int, jobs: int) -> None:
        """Move between stages (``stages``) or items (``jobs``): in a column in the column layout,
        through the whole list otherwise."""
        groups = [items for items in self._items() if items]
        if not groups:
            return
        number, index = self._position()
        number = min(number, len(groups) - 1)
        columns = self.current is not None and self.current.columns
        if stages:
            number = max(0, min(len(groups) - 1, number + stages))
            index = min(index, len(groups[number]) - 1) if columns else 0
        elif columns:
            index = max(0, min(len(groups[number]) - 1, index + jobs))
        else:
            flat = [item for items in groups for item in items]
            position = flat.index(self.cursor) if self.cursor in flat else 0
            self.cursor = flat[max(0, min(len(flat) - 1, position + jobs))]
            self._moved = True
            self.redraw()
            return
        self.cursor = groups[number][index]
        self._moved = True
        self.redraw()

    def action_edge(self, direction: int) -> None:
        """First (``-1``) or last (``1``) item."""
        flat = [item for items in self._items() for item in items]
        if flat:
            self.cursor = flat[0] if direction < 0 else flat[-1]
            self._moved = True
            self.redraw()

    def toggle_mark(self) -> bool:
        """Mark or unmark the job under the cursor; True when it is now marked."""
        if not isinstance(self.cursor, int):
            return False
        self._moved = True
        now_marked = self.cursor not in self.marked
        if now_marked:
            self.marked.add(self.cursor)
        else:
            self.marked.discard(self.cursor)
        self.redraw()
        return now_marked
