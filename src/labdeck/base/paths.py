"""Where labdeck keeps its files (platformdirs / XDG), each overridable for tests and odd setups."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "labdeck"


def config_file() -> Path:
    """The TOML config file: ``$LABDECK_CONFIG`` or ``<user config dir>/labdeck/config.toml``."""
    override = os.environ.get("LABDECK_CONFIG")
    if override:
        return Path(override).expanduser()
    return config_dir() / "config.toml"


def config_dir() -> Path:
    """The user config directory (themes live in ``themes/`` below it)."""
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def state_dir() -> Path:
    """Persistent state that survives a restart: state.json, drafts, crash reports, token files."""
    return Path(platformdirs.user_state_dir(APP_NAME, appauthor=False))


def state_file() -> Path:
    """The console's JSON state (last profile, history, drafts)."""
    return state_dir() / "state.json"


def crash_dir() -> Path:
    """Where ``crash-<time>.txt`` reports are written."""
    return state_dir()


def cache_dir() -> Path:
    """Files that may be thrown away at any time (the finished-log cache)."""
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def log_cache_dir() -> Path:
    """Finished job logs kept by triage (files mode 0600, bounded; see :mod:`labdeck.triage.logcache`)."""
    return cache_dir() / "logs"


def audit_file() -> Path:
    """The local audit log of changes sent to instances (JSON lines, mode 0600; rotated)."""
    return state_dir() / "audit.jsonl"


def download_dir() -> Path:
    """Where files the user asks for are saved by default: the user's download folder
    (``XDG_DOWNLOAD_DIR``, usually ``~/Downloads``), created (private) when missing; never the
    current directory, which over SSH is often somewhere shared."""
    folder = Path(platformdirs.user_downloads_dir())
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return Path.home()
    return folder


def encrypted_store_file() -> Path:
    """The opt-in encrypted token file (Fernet, scrypt-derived key)."""
    return state_dir() / "tokens.encrypted.json"


def plaintext_store_file() -> Path:
    """The ``--insecure-storage`` token file (mode 0600, plaintext)."""
    return state_dir() / "tokens.insecure.json"


def python_gitlab_config_files() -> list[Path]:
    """python-gitlab's config search order: ``$PYTHON_GITLAB_CFG``, then the user files."""
    files: list[Path] = []
    override = os.environ.get("PYTHON_GITLAB_CFG")
    if override:
        files.append(Path(override).expanduser())
    home = Path.home()
    files.append(home / ".python-gitlab.cfg")
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    files.append(Path(xdg) / "python-gitlab.cfg")
    return files
