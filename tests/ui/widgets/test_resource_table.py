"""The virtual table: filtering, inverted filters, cursor keeping, replacing rows, sorting, keys."""

from __future__ import annotations

from textual.app import App, ComposeResult

from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow

COLUMNS = [Column("path", "Path", flex=True, min_width=8), Column("stars", "Stars", align="right")]


class TableApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.selected: list[object] = []

    def compose(self) -> ComposeResult:
        yield ResourceTable(COLUMNS)

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        self.selected.append(event.key)


def _rows(count: int) -> list[TableRow]:
    return [TableRow(key=i, cells=(f"group{i % 3}/project-{i}", str(i % 7)), data={"id": i}) for i in range(count)]


async def test_filter_invert_and_cursor_follow() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(ResourceTable)
        table.focus()
        table.append_rows(_rows(30))
        await pilot.press("down", "down")
        assert table.cursor_key == 2
        table.set_filter("GROUP2/")  # case-insensitive
        assert table.visible_count == 10
        assert table.cursor_key == 2  # the highlighted row still matches: it stays highlighted
        table.set_filter("!group2/")
        assert table.visible_count == 20
        assert all(not row.cells[0].startswith("group2/") for row in table.visible_rows())
        window = table.visible_rows(5, 9)  # what is on screen, say, without building the rest
        assert [row.key for row in window] == [row.key for row in table.visible_rows()[5:9]] == [7, 9, 10, 12]
        table.set_filter("")
        assert table.visible_count == 30


async def test_keys_move_and_enter_selects() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(ResourceTable)
        table.focus()
        table.append_rows(_rows(100))
        await pilot.press("end")
        assert table.cursor_key == 99
        assert table.scroll_y > 0  # scrolled to keep the cursor visible
        await pilot.press("home", "pagedown")
        assert table.cursor_row > 1
        await pilot.press("g", "j", "j", "k", "enter")
        await pilot.pause()
        assert app.selected == [1]


async def test_replacing_and_sorting_rows() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)):
        table = app.query_one(ResourceTable)
        table.append_rows(_rows(5))
        table.update_row(TableRow(key=3, cells=("renamed/project", "42"), data={"id": 3}))
        assert table.row_count == 5
        assert table.get_data(3) == {"id": 3}
        table.sort("stars", reverse=True)
        assert table.visible_rows()[0].cells[0] == "renamed/project"
        table.clear()
        assert table.row_count == 0 and table.cursor_key is None


async def test_server_strings_are_not_markup() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(ResourceTable)
        table.append_rows([TableRow(key=1, cells=("[bold red]evil[/] [@click=app.quit]x[/]", "1"))])
        await pilot.pause()
        line = table.render_line(1)
        assert "[bold red]evil[/]" in line.text
        assert app.is_running


async def test_a_row_replaced_in_place_shows_its_new_text_and_only_its_line_is_redrawn() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(ResourceTable)
        table.append_rows(_rows(30))
        await pilot.pause()
        before = [table.render_line(y).text for y in range(1, 8)]
        repaints: list[object] = []
        original = table.refresh

        def counted(*regions: object, **kwargs: object) -> object:
            repaints.append(regions or "whole")
            return original(*regions, **kwargs)  # type: ignore[arg-type]

        table.refresh = counted  # type: ignore[method-assign]
        table.update_row(TableRow(key=3, cells=("group0/project-3", "5"), data={"id": 3}))  # same width
        assert repaints and "whole" not in repaints  # one line, not the table
        after = [table.render_line(y).text for y in range(1, 8)]
        assert after[3].rstrip().endswith("5") and before[3].rstrip().endswith("3")
        assert after[:3] == before[:3] and after[4:] == before[4:]
        # A longer cell widens its column: then every line is laid out again.
        repaints.clear()
        table.update_row(TableRow(key=4, cells=("group1/project-4-with-a-much-longer-name", "1"), data={"id": 4}))
        assert "whole" in repaints
