"""The config file (TOML): profiles, the default profile, ``[keymap]`` and ``[ui]``. Never a token.

Example::

    default_profile = "work"

    [profiles.work]
    url = "https://gitlab.example.com"
    theme = "ops-dark"          # optional
    read_only = false           # optional
    ca_file = "/etc/ssl/corp.pem"   # optional
    start = "board"             # optional: the first screen, "projects" (default) or "board"
    token_store = "keyring"     # written by `labdeck login`: where the token is (never the token)

    [keymap]
    "app.mode.jobs" = "3,j"

    [ui]
    theme = "ops-dark"
    refresh_interval = 5.0

    [board]                     # the on-call board's shared poller (labdeck.watch)
    interval = 5.0              # activity check and running jobs, seconds
    requests_per_minute = 60    # the poller's steady-state request budget
    max_in_flight = 4           # requests at once

    [alerts]                    # channels of `W` alerts; each defaults to on in an interactive
    toast = true                # session and to off in tests and screenshots unless set here
    bell = true                 # BEL
    desktop = true              # OSC 9 / OSC 777 notification (tmux passthrough inside tmux)
    title = true                # terminal title "✗ 2 failed · labdeck"
    notify = "auto"             # which desktop escape: auto, osc9, osc777, both
    keep_log = false            # keep the alert log (`!`) across restarts, in the state file

Validation collects every problem (file, key, what is wrong) into one :class:`ConfigError`.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from labdeck.base import paths
from labdeck.base.statefile import write_private

TOKEN_STORES = ("keyring", "encrypted", "insecure-file")
_PROFILE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_SECRET_KEYS = {"token", "private_token", "private-token", "oauth_token", "job_token", "password"}


class ConfigError(Exception):
    """The config file is unreadable or invalid; ``str()`` lists every problem, one per line."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        lines = [f"Invalid config file {path}:"] + [f"  - {problem}" for problem in problems]
        super().__init__("\n".join(lines))


@dataclass
class Profile:
    """One instance to connect to."""

    name: str
    url: str
    theme: str | None = None
    read_only: bool = False
    ca_file: str | None = None
    start: str = "projects"
    """The first screen: ``projects`` or ``board`` (the on-call board)."""
    short: str | None = None
    """The short name marking this instance's rows on a board over several profiles (``prod``);
    the profile's name when unset."""
    token_store: str | None = None
    """Where ``labdeck login`` stored this profile's token: ``keyring``, ``encrypted``,
    ``insecure-file`` (the token itself is never in the config)."""


@dataclass
class UiSettings:
    """``[ui]``: console settings that are not per profile."""

    theme: str | None = None
    refresh_interval: float = 5.0
    """Seconds between automatic list refreshes."""
    trace_interval: float = 1.0
    """Seconds between trace polls while a job runs."""
    trace_max_lines: int = 100_000
    """Lines kept in memory by the trace viewer before older ones are dropped."""


@dataclass
class BoardSettings:
    """``[board]``: the shared poller of the on-call board (see :mod:`labdeck.watch.settings`)."""

    interval: float = 5.0
    """Seconds between activity checks and between reads of projects with running jobs."""
    requests_per_minute: float = 60.0
    """The poller's steady-state request budget."""
    max_in_flight: int = 4
    """Requests the poller has in flight at once."""


START_SCREENS = ("projects", "board")
"""What a profile's ``start`` may name."""

NOTIFY_FORMS = ("auto", "osc9", "osc777", "both")
ALERT_CHANNELS = ("toast", "bell", "desktop", "title")


@dataclass
class AlertSettings:
    """``[alerts]``: alert channels. A channel left unset (None) is on in an interactive session
    and off in tests and screenshots; ``true``/``false`` decide everywhere."""

    toast: bool | None = None
    bell: bool | None = None
    desktop: bool | None = None
    title: bool | None = None
    notify: str = "auto"
    """Desktop escape: ``auto`` (from $TERM/$TERM_PROGRAM), ``osc9``, ``osc777`` or ``both``."""
    keep_log: bool = False
    """Keep the alert log across restarts (state file); otherwise it lasts the session."""

    def enabled(self, channel: str, *, interactive: bool) -> bool:
        """Whether ``channel`` (toast, bell, desktop, title) is on."""
        value = getattr(self, channel)
        return interactive if value is None else bool(value)


@dataclass
class Config:
    """The parsed config file (or the defaults when there is none)."""

    path: Path
    exists: bool = False
    default_profile: str | None = None
    profiles: dict[str, Profile] = field(default_factory=dict)
    keymap: dict[str, str] = field(default_factory=dict)
    ui: UiSettings = field(default_factory=UiSettings)
    board: BoardSettings = field(default_factory=BoardSettings)
    alerts: AlertSettings = field(default_factory=AlertSettings)
    boards: list[str] = field(default_factory=list)
    """``boards = ["prod", "staging"]``: the profiles one board shows side by side (``--profile
    prod,staging`` on the command line; ``:board all`` in the console)."""

    def profile(self, name: str | None = None) -> Profile | None:
        """The named profile, else the default one, else the only one."""
        if name:
            return self.profiles.get(name)
        if self.default_profile:
            return self.profiles.get(self.default_profile)
        if len(self.profiles) == 1:
            return next(iter(self.profiles.values()))
        return None

    def selected_profile_name(self, name: str | None = None) -> str:
        """The name a command acts on: ``name``, else ``default_profile``, else ``default``."""
        if name:
            return name
        if self.default_profile:
            return self.default_profile
        if len(self.profiles) == 1:
            return next(iter(self.profiles))
        return "default"


def normalise_url(url: str) -> str:
    """``https://host[:port][/prefix]`` without a trailing slash or ``/api/v4``."""
    url = url.strip().rstrip("/")
    if url.endswith("/api/v4"):
        url = url[: -len("/api/v4")]
    return url


def url_problem(url: str) -> str | None:
    """Why ``url`` is not a usable instance URL, or ``None``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return f"must start with https:// (or http://), got {url!r}"
    if not parts.hostname:
        return f"has no host name: {url!r}"
    if parts.username or parts.password:
        return "must not contain a user name or password"
    if parts.query or parts.fragment:
        return "must not contain a query or fragment"
    return None


def load_config(path: Path | None = None) -> Config:
    """Read and validate the config file; a missing file gives the defaults."""
    path = path or paths.config_file()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config(path=path)
    except OSError as error:
        raise ConfigError(path, [f"cannot be read: {error.strerror or error}"]) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(path, ["is not UTF-8 text"]) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(path, [f"is not valid TOML: {error}"]) from None
    return parse_config(data, path)


def parse_config(data: dict[str, Any], path: Path) -> Config:
    """Validate parsed TOML; raises :class:`ConfigError` listing every problem."""
    problems: list[str] = []
    config = Config(path=path, exists=True)
    for key, value in data.items():
        if key == "default_profile":
            if isinstance(value, str) and value:
                config.default_profile = value
            else:
                problems.append("default_profile: must be a non-empty string (a profile name)")
        elif key == "profiles":
            if not isinstance(value, dict):
                problems.append("profiles: must be a table of [profiles.NAME] tables")
                continue
            for name, table in value.items():
                profile = _parse_profile(name, table, problems)
                if profile is not None:
                    config.profiles[name] = profile
        elif key == "keymap":
            config.keymap = _parse_keymap(value, problems)
        elif key == "ui":
            config.ui = _parse_ui(value, problems)
        elif key == "board":
            config.board = _parse_board(value, problems)
        elif key == "alerts":
            config.alerts = _parse_alerts(value, problems)
        elif key == "boards":
            if isinstance(value, list) and value and all(isinstance(item, str) and item for item in value):
                config.boards = list(dict.fromkeys(value))
            else:
                problems.append('boards: must be a list of profile names, e.g. boards = ["prod", "staging"]')
        elif key.lower() in _SECRET_KEYS:
            problems.append(f"{key}: tokens are never stored in the config file; remove it and run "
                            "`labdeck login` (keyring) or set LABDECK_TOKEN")
        else:
            problems.append(f"{key}: unknown setting (expected default_profile, boards, "
                            "[profiles.NAME], [keymap], [ui], [board], [alerts])")
    if config.default_profile and config.default_profile not in config.profiles and not any(
        problem.startswith(f"profiles.{config.default_profile}") for problem in problems
    ):
        known = ", ".join(sorted(config.profiles)) or "none defined"
        problems.append(f"default_profile: no profile named {config.default_profile!r} "
                        f"(profiles: {known})")
    if problems:
        raise ConfigError(path, problems)
    return config


def _parse_profile(name: str, table: Any, problems: list[str]) -> Profile | None:
    where = f"profiles.{name}"
    if not _PROFILE_NAME.match(name):
        problems.append(f"{where}: profile names may use letters, digits, '.', '_' and '-' only")
    if not isinstance(table, dict):
        problems.append(f"{where}: must be a table with at least url = \"https://…\"")
        return None
    url = table.get("url")
    if not isinstance(url, str) or not url:
        problems.append(f"{where}.url: missing (e.g. url = \"https://gitlab.example.com\")")
        url = ""
    elif (problem := url_problem(url)) is not None:
        problems.append(f"{where}.url: {problem}")
    profile = Profile(name=name, url=normalise_url(url))
    for key, value in table.items():
        if key == "url":
            continue
        if key in ("theme", "ca_file", "short"):
            if not isinstance(value, str) or not value:
                problems.append(f"{where}.{key}: must be a non-empty string")
            else:
                setattr(profile, key, value)
        elif key == "read_only":
            if not isinstance(value, bool):
                problems.append(f"{where}.read_only: must be true or false, got {value!r}")
            else:
                profile.read_only = value
        elif key == "start":
            if value not in START_SCREENS:
                problems.append(f"{where}.start: must be one of {', '.join(START_SCREENS)}, got {value!r}")
            else:
                profile.start = value
        elif key == "token_store":
            if value not in TOKEN_STORES:
                problems.append(f"{where}.token_store: must be one of {', '.join(TOKEN_STORES)}")
            else:
                profile.token_store = value
        elif key.lower() in _SECRET_KEYS:
            problems.append(f"{where}.{key}: tokens are never stored in the config file; remove it "
                            "and run `labdeck login` (keyring) or set LABDECK_TOKEN")
        else:
            problems.append(f"{where}.{key}: unknown setting (expected url, theme, read_only, "
                            "ca_file, start, token_store, short)")
    return profile


def _parse_keymap(value: Any, problems: list[str]) -> dict[str, str]:
    if not isinstance(value, dict):
        problems.append("keymap: must be a table of binding id = \"keys\"")
        return {}
    keymap: dict[str, str] = {}
    for binding, keys in value.items():
        if isinstance(keys, list) and keys and all(isinstance(key, str) and key for key in keys):
            keymap[binding] = ",".join(keys)
        elif isinstance(keys, str) and keys.strip():
            keymap[binding] = keys.strip()
        else:
            problems.append(f"keymap.{binding}: must be keys like \"ctrl+r\" or \"3,j\"")
    return keymap


def _parse_ui(value: Any, problems: list[str]) -> UiSettings:
    ui = UiSettings()
    if not isinstance(value, dict):
        problems.append("ui: must be a table")
        return ui
    for key, item in value.items():
        if key == "theme":
            if isinstance(item, str) and item:
                ui.theme = item
            else:
                problems.append("ui.theme: must be a theme name")
        elif key in ("refresh_interval", "trace_interval"):
            if isinstance(item, bool) or not isinstance(item, int | float) or not math.isfinite(item) \
                    or item <= 0:
                problems.append(f"ui.{key}: must be a positive number of seconds, got {item!r}")
            else:
                setattr(ui, key, float(item))
        elif key == "trace_max_lines":
            if isinstance(item, bool) or not isinstance(item, int) or item < 1000:
                problems.append(f"ui.trace_max_lines: must be a whole number ≥ 1000, got {item!r}")
            else:
                ui.trace_max_lines = item
        else:
            problems.append(f"ui.{key}: unknown setting (expected theme, refresh_interval, "
                            "trace_interval, trace_max_lines)")
    return ui


def _parse_board(value: Any, problems: list[str]) -> BoardSettings:
    board = BoardSettings()
    if not isinstance(value, dict):
        problems.append("board: must be a table")
        return board
    for key, item in value.items():
        number = not isinstance(item, bool) and isinstance(item, int | float) and math.isfinite(item)
        if key in ("interval", "requests_per_minute"):
            low = 1.0 if key == "interval" else 6.0
            if not number or item < low:
                problems.append(f"board.{key}: must be a number ≥ {low:g}, got {item!r}")
            else:
                setattr(board, key, float(item))
        elif key == "max_in_flight":
            if isinstance(item, bool) or not isinstance(item, int) or not 1 <= item <= 16:
                problems.append(f"board.max_in_flight: must be a whole number from 1 to 16, got {item!r}")
            else:
                board.max_in_flight = item
        else:
            problems.append(f"board.{key}: unknown setting (expected interval, requests_per_minute, max_in_flight)")
    return board


def _parse_alerts(value: Any, problems: list[str]) -> AlertSettings:
    alerts = AlertSettings()
    if not isinstance(value, dict):
        problems.append("alerts: must be a table")
        return alerts
    for key, item in value.items():
        if key in (*ALERT_CHANNELS, "keep_log"):
            if not isinstance(item, bool):
                problems.append(f"alerts.{key}: must be true or false, got {item!r}")
            else:
                setattr(alerts, key, item)
        elif key == "notify":
            if item not in NOTIFY_FORMS:
                problems.append(f"alerts.notify: must be one of {', '.join(NOTIFY_FORMS)}, got {item!r}")
            else:
                alerts.notify = item
        else:
            problems.append(f"alerts.{key}: unknown setting (expected {', '.join(ALERT_CHANNELS)}, notify, keep_log)")
    return alerts


def _section_values(config: Config) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """``[board]`` and ``[alerts]``: (wanted values, defaults) for writing."""
    board_names = ("interval", "requests_per_minute", "max_in_flight")
    alert_names = (*ALERT_CHANNELS, "notify", "keep_log")
    return {
        "board": ({n: getattr(config.board, n) for n in board_names},
                  {n: getattr(BoardSettings(), n) for n in board_names}),
        "alerts": ({n: getattr(config.alerts, n) for n in alert_names},
                   {n: getattr(AlertSettings(), n) for n in alert_names}),
    }


# --- writing ---------------------------------------------------------------------------------------


def save_config(config: Config) -> None:
    """Write the config file (mode 0600, atomic).

    An existing file is edited in place with :mod:`tomlkit`: only the keys whose values changed are
    touched, so the user's comments, key order, blank lines and unrelated sections stay as written.
    A new file gets the commented layout of :func:`dump_config`.
    """
    if config.path.exists():
        import tomlkit  # only to write a file (reading it needs only tomllib)
        import tomlkit.exceptions

        text = config.path.read_text(encoding="utf-8")
        try:
            document = tomlkit.parse(text)
        except tomlkit.exceptions.TOMLKitError as error:
            raise ConfigError(config.path, [f"cannot be updated without losing its content: {error}"]) from None
        _update_document(document, config)
        write_private(config.path, tomlkit.dumps(document).encode("utf-8"))
    else:
        write_private(config.path, dump_config(config).encode("utf-8"))
    config.exists = True


def _sync(table: Any, wanted: dict[str, Any], *, keep_equal_defaults: dict[str, Any] | None = None) -> None:
    """Make ``table`` hold ``wanted`` (None: absent), touching only keys whose value differs.

    ``keep_equal_defaults``: keys whose absence is the same as this value; a key already written
    with that value is left alone (``read_only = false`` stays as the user wrote it).
    """
    defaults = keep_equal_defaults or {}
    for key, value in wanted.items():
        current = table.get(key)
        if value is None or (key in defaults and value == defaults[key] and current is None):
            if current is not None and not (key in defaults and current == defaults[key] == value):
                del table[key]
            continue
        if current is None or current != value:
            table[key] = value


def _update_document(document: Any, config: Config) -> None:
    """Bring a parsed (tomlkit) config document in line with ``config``, preserving everything else."""
    import tomlkit
    if config.default_profile:
        if document.get("default_profile") != config.default_profile:
            document["default_profile"] = config.default_profile
    elif "default_profile" in document:
        del document["default_profile"]
    profiles = document.get("profiles")
    if profiles is None and config.profiles:
        profiles = tomlkit.table(is_super_table=True)
        document["profiles"] = profiles
    if profiles is not None:
        for name in [name for name in profiles if name not in config.profiles]:
            del profiles[name]
        for name, profile in config.profiles.items():
            table = profiles.get(name)
            if table is None:
                table = tomlkit.table()
                profiles[name] = table
            _sync(table, {"url": profile.url, "theme": profile.theme, "read_only": profile.read_only,
                          "ca_file": profile.ca_file, "token_store": profile.token_store,
                          "short": profile.short},
                  keep_equal_defaults={"read_only": False})
    if config.keymap or "keymap" in document:
        keymap = document.get("keymap")
        if keymap is None:
            keymap = tomlkit.table()
            document["keymap"] = keymap
        for key in [key for key in keymap if key not in config.keymap]:
            del keymap[key]
        for key, value in config.keymap.items():
            current = keymap.get(key)
            # "3,j" and ["3", "j"] mean the same binding: keep the user's spelling.
            spelled = ",".join(current) if isinstance(current, list) else current
            if spelled != value:
                keymap[key] = value
    defaults = UiSettings()
    names = ("theme", "refresh_interval", "trace_interval", "trace_max_lines")
    wanted = {name: getattr(config.ui, name) for name in names}
    if "ui" in document or any(wanted[name] != getattr(defaults, name) for name in names):
        ui = document.get("ui")
        if ui is None:
            ui = tomlkit.table()
            document["ui"] = ui
        _sync(ui, wanted, keep_equal_defaults={name: getattr(defaults, name) for name in names})
    for section, (values, section_defaults) in _section_values(config).items():
        if section in document or values != section_defaults:
            table = document.get(section)
            if table is None:
                table = tomlkit.table()
                document[section] = table
            _sync(table, values, keep_equal_defaults=section_defaults)


def dump_config(config: Config) -> str:
    """The TOML text for ``config``."""
    out: list[str] = ["# labdeck configuration. Tokens are never stored here.", ""]
    if config.default_profile:
        out.append(f"default_profile = {_toml_value(config.default_profile)}")
        out.append("")
    for name, profile in config.profiles.items():
        out.append(f"[profiles.{_toml_key(name)}]")
        out.append(f"url = {_toml_value(profile.url)}")
        for key in ("theme", "ca_file", "token_store"):
            value = getattr(profile, key)
            if value:
                out.append(f"{key} = {_toml_value(value)}")
        if profile.read_only:
            out.append("read_only = true")
        out.append("")
    if config.keymap:
        out.append("[keymap]")
        out.extend(f"{_toml_key(key)} = {_toml_value(value)}" for key, value in config.keymap.items())
        out.append("")
    defaults = UiSettings()
    ui_lines = [
        f"{key} = {_toml_value(getattr(config.ui, key))}"
        for key in ("theme", "refresh_interval", "trace_interval", "trace_max_lines")
        if getattr(config.ui, key) is not None and getattr(config.ui, key) != getattr(defaults, key)
    ]
    if ui_lines:
        out.append("[ui]")
        out.extend(ui_lines)
        out.append("")
    for section, (values, section_defaults) in _section_values(config).items():
        lines = [f"{key} = {_toml_value(value)}" for key, value in values.items()
                 if value is not None and value != section_defaults[key]]
        if lines:
            out.append(f"[{section}]")
            out.extend(lines)
            out.append("")
    return "\n".join(out)


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_value(key)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    text = str(value)
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = re.sub(r"[\x00-\x1f\x7f]", lambda match: f"\\u{ord(match.group()):04x}", escaped)
    return f'"{escaped}"'
