"""Cells of tables and detail screens: server text made inert, theme colours, field rows.

Kept apart from the form dialog (:mod:`labdeck.ui.dialogs.form`), whose input widgets the first
screen does not need to import.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.color import Color, ColorParseError

from labdeck.logtext.sanitize import escape_raw
from labdeck.ui.formatting import relative_time
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow

MASK = "•••••••• (hidden)"
"""What a secret looks like on screen."""


def clean(value: Any) -> str:
    """Server text made inert for the terminal: escape and control characters become visible
    symbols (``␛``), only newlines and tabs stay. Use it on every server string shown."""
    return escape_raw("" if value is None else str(value))


def theme_colour(app: App[Any], *names: str) -> str | None:
    """The first theme variable of ``names`` holding a plain colour (``#rrggbb``); some variables
    are expressions such as ``auto 60%`` that only CSS understands."""
    variables = app.theme_variables
    for name in names:
        value = variables.get(name)
        if not value:
            continue
        try:
            return Color.parse(value).hex6
        except ColorParseError:
            continue
    return None


def coloured(app: App[Any], text: str, *variables: str, bold: bool = False) -> Text:
    """``text`` coloured with the first usable theme variable; ``text-muted`` (a CSS expression,
    not a colour) becomes dim text so it follows the theme's foreground."""
    colour = theme_colour(app, *variables)
    if colour is None:
        return Text(clean(text), style=Style(dim="text-muted" in variables, bold=bold))
    return Text(clean(text), style=Style(color=colour, bold=bold))


def shown(value: Any, now: datetime | None = None) -> str:
    """A field value as one line of text (``—`` for absent, yes/no for booleans)."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime):
        stamp = value.isoformat(timespec="seconds")
        return f"{stamp} ({relative_time(value, now)})" if now is not None else stamp
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return ", ".join(shown(item, now) for item in value) or "—"
    if isinstance(value, dict):
        return ", ".join(f"{k}={shown(v, now)}" for k, v in value.items()) or "—"
    return clean(" ".join(str(value).split()))


def fields_table(id: str) -> ResourceTable:
    """A two-column (field, value) table for detail screens."""
    return ResourceTable([Column("field", "Field", max_width=32), Column("value", "Value", max_width=400,
                                                                           flex=True, min_width=20)], id=id)


def field_row(name: str, value: Any, now: datetime | None = None, *, key: Any = None, data: Any = None,
              secret: bool = False) -> TableRow:
    """One (field, value) row; ``secret`` masks the value."""
    text = (MASK if value else "—") if secret else shown(value, now)
    return TableRow(key=key if key is not None else name, cells=(name, text), data=data)
