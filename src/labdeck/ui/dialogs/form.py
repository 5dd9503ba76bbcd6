"""A small reusable form dialog (the cell helpers of detail screens are in
:mod:`labdeck.ui.widgets.cells`, re-exported here).

Usage::

    fields = [FormField("title", "Title", required=True, value=issue.title),
              FormField("confidential", "Confidential", kind="bool", value=issue.confidential)]

    async def save(values: dict[str, Any]) -> Any:
        return await client.issues.update(pid, iid, **values)

    self.app.push_screen(FormScreen("Edit issue", fields, save, only_changed=True), after)

``submit`` runs inside the dialog: a server refusal (400/422, 403, …) is shown inline under the
field it names (and as one line at the bottom) and the dialog stays open with everything the user
typed. When the outcome is unknown (the request was sent, the answer lost) the dialog keeps the
values but will not send again: the user refreshes to check first. Without ``submit`` the dialog just returns the values. ``after`` receives the result of
``submit`` (or the values), or None when the user cancelled.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static, Switch, TextArea

from labdeck.api import errors
from labdeck.ui.type_ahead import HoldsTypeAhead
from labdeck.ui.widgets.cells import MASK, clean, coloured, field_row, fields_table, shown, theme_colour

__all__ = ["MASK", "OUTCOME_UNKNOWN_HINT", "FieldKind", "FormField", "FormScreen", "Submit", "clean", "coloured",
           "field_row", "fields_table", "shown", "theme_colour"]


FieldKind = Literal["text", "secret", "int", "bool", "select", "multiline"]


@dataclass(frozen=True)
class FormField:
    """One field of a :class:`FormScreen`.

    ``kind``: ``text`` (one line), ``secret`` (masked input), ``int`` (whole number, empty = None),
    ``bool`` (switch), ``select`` (``options`` of ``(label, value)``), ``multiline`` (text area).
    ``validate`` returns an error message for a bad value (after the built-in checks)."""

    name: str
    label: str
    kind: FieldKind = "text"
    value: Any = None
    required: bool = False
    options: Sequence[tuple[str, Any]] = ()
    help: str = ""
    validate: Callable[[Any], str | None] | None = None


Submit = Callable[[dict[str, Any]], Awaitable[Any]]

OUTCOME_UNKNOWN_HINT = "The server may have applied this; refresh to check before trying again."
"""Shown when a change was sent but its answer was lost (no automatic or one-key resend)."""


def _initial(field: FormField) -> Any:
    if field.kind == "bool":
        return bool(field.value)
    if field.kind in ("text", "secret", "multiline"):
        return clean(field.value)  # shown as typed text: made inert, compared in this form
    return field.value


class FormScreen(HoldsTypeAhead, ModalScreen[Any]):
    """A dialog of labelled fields; see the module docstring."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="form.cancel"),
        Binding("ctrl+s", "submit", "Save", id="form.save"),
    ]
    DEFAULT_CSS = """
    FormScreen { align: center middle; background: $background 60%; }
    FormScreen > #dialog {
        width: 88; max-width: 98%; height: auto; max-height: 98%;
        border: thick $ld-env-accent; background: $surface; padding: 0 1;
    }
    FormScreen #form-title { text-style: bold; width: 100%; }
    FormScreen #form-target { color: $ld-text-muted; width: 100%; }
    FormScreen #fields { height: auto; max-height: 60vh; margin: 1 0 0 0; }
    FormScreen .form-row { height: auto; width: 100%; margin: 0 0 0 0; }
    FormScreen .form-label { width: 28; padding: 0 1 0 0; text-wrap: nowrap; text-overflow: ellipsis; }
    FormScreen .form-label.-required { text-style: bold; }
    FormScreen .form-widget { width: 1fr; }
    FormScreen Input.form-widget { height: 1; border: none; padding: 0 1; background: $boost; }
    FormScreen Input.form-widget:focus { background: $primary 30%; }
    FormScreen Switch.form-widget { width: auto; height: 1; border: none; padding: 0; }
    FormScreen Switch.form-widget:focus { background: $primary 30%; }
    FormScreen Select.form-widget > SelectCurrent { height: 1; border: none; padding: 0 1; background: $boost; }
    FormScreen Select.form-widget:focus > SelectCurrent { background: $primary 30%; }
    FormScreen TextArea.form-widget { height: 5; border: none; background: $boost; }
    FormScreen TextArea.form-widget:focus { background: $primary 20%; }
    FormScreen .form-help { color: $ld-text-muted; padding: 0 0 0 28; width: 100%; }
    FormScreen .form-error { color: $ld-text-error; padding: 0 0 0 28; width: 100%; display: none; }
    FormScreen .form-error.-shown { display: block; }
    FormScreen #form-message { color: $ld-text-error; width: 100%; display: none; }
    FormScreen #form-message.-shown { display: block; }
    FormScreen #form-preview { color: $ld-text-muted; width: 100%; height: auto; max-height: 6; }
    FormScreen #form-buttons { height: auto; align-horizontal: right; }
    FormScreen #form-buttons Button { margin: 0 0 0 2; min-width: 10; }
    """

    def __init__(self, title: str, fields: Sequence[FormField], submit: Submit | None = None, *,
                 only_changed: bool = False, target: str | None = None, submit_label: str = "Save",
                 request: str | None = None) -> None:
        """``only_changed``: pass only fields whose value differs from the initial one (edits).
        ``request``: what submitting sends (``PUT /projects/12/issues/3``), shown with the values
        it will carry above the buttons, so the one confirmation is an informed one."""
        super().__init__()
        self._request = request
        self._title = title
        self.fields = list(fields)
        self._submit = submit
        self._only_changed = only_changed
        self._target = target
        self._submit_label = submit_label
        self.busy = False
        self.last_error: str = ""
        """The last message shown at the bottom (tests read it)."""
        self.outcome_unknown = False
        """True once a submission may or may not have been applied: it cannot be sent again."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(Text(clean(self._title)), id="form-title")
            if self._target:
                yield Label(Text(clean(self._target)), id="form-target")
            with VerticalScroll(id="fields"):
                for field in self.fields:
                    with Horizontal(classes="form-row"):
                        label = Text(field.label + (" *" if field.required else ""))
                        yield Label(label, classes="form-label" + (" -required" if field.required else ""))
                        yield self._widget(field)
                    if field.help:
                        yield Static(Text(field.help), classes="form-help")
                    yield Static("", id=f"err-{field.name}", classes="form-error", markup=False)
            yield Static("", id="form-message", markup=False)
            if self._submit is not None:
                yield Static("", id="form-preview", markup=False)
            with Horizontal(id="form-buttons"):
                yield Button("Cancel", id="form-cancel")
                yield Button(Text(self._submit_label), id="form-submit", variant="primary")

    def _widget(self, field: FormField) -> Any:
        wid = f"f-{field.name}"
        if field.kind == "bool":
            return Switch(value=bool(field.value), id=wid, classes="form-widget")
        if field.kind == "select":
            value = field.value if any(v == field.value for _, v in field.options) else Select.NULL
            return Select([(Text(clean(label)), v) for label, v in field.options], value=value,
                          allow_blank=not field.required, id=wid, classes="form-widget")
        if field.kind == "multiline":
            return TextArea(_initial(field), id=wid, classes="form-widget", soft_wrap=True)
        initial = _initial(field)
        return Input(value="" if initial is None else str(initial), password=field.kind == "secret", id=wid, classes="form-widget",
                     type="integer" if field.kind == "int" else "text",
                     placeholder="(secret)" if field.kind == "secret" else "")

    def on_mount(self) -> None:
        if self.fields:
            self.query_one(f"#f-{self.fields[0].name}").focus()
        self.release_keys()
        self.update_preview()

    # --- what will be sent --------------------------------------------------------------------

    def preview_text(self) -> str:
        """``Will send PUT …: title: "a" → "b", labels: "x"`` (secrets never shown)."""
        values, _ = self.collect()
        by_name = {field.name: field for field in self.fields}
        parts = []
        for name, value in values.items():
            field = by_name[name]
            shown = _preview_value(field, value)
            if self._only_changed and field.kind != "secret":
                parts.append(f"{field.label}: {_preview_value(field, _initial(field))} → {shown}")
            else:
                parts.append(f"{field.label}: {shown}")
        head = f"Will send {self._request}" if self._request else "Will send"
        if not parts:
            return f"{head}: nothing (no field changed)" if self._only_changed else f"{head}."
        return f"{head} with " + "; ".join(parts)

    def update_preview(self) -> None:
        """Refresh the line that says what submitting sends."""
        for preview in self.query("#form-preview"):
            if isinstance(preview, Static):
                preview.update(Text(clean(self.preview_text())))

    @on(Input.Changed)
    @on(Switch.Changed)
    @on(Select.Changed)
    @on(TextArea.Changed)
    def _field_changed(self) -> None:
        self.update_preview()

    # --- values -------------------------------------------------------------------------------

    def raw_value(self, field: FormField) -> Any:
        """The widget's current value (text for text-like fields)."""
        widget = self.query_one(f"#f-{field.name}")
        if isinstance(widget, Switch):
            return widget.value
        if isinstance(widget, Select):
            return None if widget.value is Select.NULL else widget.value
        if isinstance(widget, TextArea):
            return widget.text
        if isinstance(widget, Input):
            return widget.value
        return None

    def set_value(self, name: str, value: Any) -> None:
        """Set a field's widget (tests and programmatic fills)."""
        widget = self.query_one(f"#f-{name}")
        if isinstance(widget, Switch):
            widget.value = bool(value)
        elif isinstance(widget, Select):
            widget.value = value
        elif isinstance(widget, TextArea):
            widget.text = str(value)
        elif isinstance(widget, Input):
            widget.value = str(value)

    def collect(self) -> tuple[dict[str, Any], dict[str, str]]:
        """(values, problems): typed values of every field, and the local validation messages."""
        values: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for field in self.fields:
            raw = self.raw_value(field)
            value: Any = raw
            if field.kind in ("text", "secret", "multiline"):
                value = raw if field.kind == "multiline" else str(raw).strip()
                if field.required and not str(value).strip():
                    problems[field.name] = "required"
                    continue
            elif field.kind == "int":
                text = str(raw).strip()
                if not text:
                    value = None
                else:
                    try:
                        value = int(text)
                    except ValueError:
                        problems[field.name] = "must be a whole number"
                        continue
                if field.required and value is None:
                    problems[field.name] = "required"
                    continue
            elif field.kind == "select" and field.required and value is None:
                problems[field.name] = "required"
                continue
            if field.validate is not None:
                message = field.validate(value)
                if message:
                    problems[field.name] = message
                    continue
            values[field.name] = value
        if self._only_changed:
            values = {name: value for name, value in values.items()
                      if value != _initial(next(f for f in self.fields if f.name == name))}
        return values, problems

    # --- messages -----------------------------------------------------------------------------

    def show_errors(self, problems: dict[str, str], message: str = "") -> None:
        """Show messages under the named fields (others go to the bottom line)."""
        names = {field.name for field in self.fields}
        extra = [f"{name}: {text}" for name, text in problems.items() if name not in names]
        for field in self.fields:
            error = self.query_one(f"#err-{field.name}", Static)
            text = problems.get(field.name, "")
            error.update(Text(clean(text)))
            error.set_class(bool(text), "-shown")
        bottom = message or "; ".join(extra)
        self.last_error = bottom
        widget = self.query_one("#form-message", Static)
        widget.update(Text(clean(bottom)))
        widget.set_class(bool(bottom), "-shown")

    # --- actions ------------------------------------------------------------------------------

    @on(Button.Pressed, "#form-cancel")
    def action_cancel(self) -> None:
        """Close without saving."""
        if not self.busy:
            self.dismiss(None)

    @on(Button.Pressed, "#form-submit")
    def _submit_pressed(self) -> None:
        self.action_submit()

    @on(Input.Submitted)
    def _input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        """Check the fields locally, then send (or return) the values."""
        if self.busy or self.outcome_unknown:
            return
        values, problems = self.collect()
        if problems:
            self.show_errors(problems, "Please correct the marked fields.")
            return
        if self._only_changed and not values:
            self.show_errors({}, "Nothing changed.")
            return
        if self._submit is None:
            self.dismiss(values)
            return
        self.show_errors({}, "")
        self.busy = True
        self.query_one("#form-submit", Button).disabled = True
        self.run_worker(self._send(values), group="form-submit", exclusive=True, exit_on_error=False)

    async def _send(self, values: dict[str, Any]) -> None:
        assert self._submit is not None
        keep_disabled = False
        try:
            result = await self._submit(values)
        except errors.ValidationError as error:
            problems = {name: "; ".join(messages) for name, messages in error.fields.items()}
            self.show_errors(problems, error.user_message())
            return
        except errors.OutcomeUnknown as error:
            # The request may have been applied: sending it again could create a duplicate. Submit
            # stays disabled (Cancel closes), the typed values stay visible for checking.
            keep_disabled = True
            self.outcome_unknown = True
            self.show_errors({}, f"{OUTCOME_UNKNOWN_HINT} ({error.user_message()})")
            return
        except errors.ApiError as error:
            self.show_errors({}, error.user_message())
            return
        except ValueError as error:
            self.show_errors({}, str(error))
            return
        finally:
            self.busy = False
            if self.is_attached:
                self.query_one("#form-submit", Button).disabled = keep_disabled
        self.dismiss(result if result is not None else values)


def _preview_value(field: FormField, value: Any) -> str:
    if field.kind == "secret":
        return "•••• (new value)" if value else "unchanged"
    if field.kind == "bool":
        return "on" if value else "off"
    if value is None or value == "":
        return "(empty)"
    text = str(value)
    if field.kind == "multiline" and "\n" in text:
        first = text.splitlines()[0]
        return f'"{first[:40]}…" ({len(text.splitlines())} lines)'
    return f'"{text[:60]}…"' if len(text) > 60 else f'"{text}"'
