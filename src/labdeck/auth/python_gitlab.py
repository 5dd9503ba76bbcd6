"""Read profiles from python-gitlab's config (``~/.python-gitlab.cfg``) for ``labdeck login
--import-python-gitlab``. Tokens found there go to labdeck's token store, never into labdeck's config."""

from __future__ import annotations

import configparser
import re
from dataclasses import dataclass
from pathlib import Path

from labdeck.api.auth import token_problem
from labdeck.base import logsafe, paths
from labdeck.base.config import normalise_url, url_problem
from labdeck.base.secret import Secret


@dataclass
class ImportedProfile:
    """One ``[section]`` of a python-gitlab config."""

    name: str
    url: str
    token: Secret | None
    ca_file: str | None = None
    note: str | None = None
    """Why something was not imported (helper tokens, ssl_verify = false, …)."""


@dataclass
class PythonGitlabConfig:
    path: Path
    default: str | None
    profiles: list[ImportedProfile]


class PythonGitlabConfigError(Exception):
    """The python-gitlab config is missing or unreadable."""


def find_config() -> Path | None:
    """The first python-gitlab config that exists, in python-gitlab's search order."""
    for path in paths.python_gitlab_config_files():
        if path.is_file():
            return path
    return None


def _profile_name(section: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "-", section)[:64] or "imported"


def read_config(path: Path | None = None) -> PythonGitlabConfig:
    """Parse the python-gitlab config (``[global] default = …`` plus one section per instance)."""
    path = path or find_config()
    if path is None:
        searched = ", ".join(str(p) for p in paths.python_gitlab_config_files())
        raise PythonGitlabConfigError(f"no python-gitlab config found (looked in {searched})")
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with path.open(encoding="utf-8") as handle:
            parser.read_file(handle)
    except (OSError, configparser.Error, UnicodeDecodeError) as error:
        # configparser errors quote the offending line, which may hold a token.
        raise PythonGitlabConfigError(f"{path} cannot be read ({type(error).__name__})") from None
    default = parser.get("global", "default", fallback=None)
    profiles: list[ImportedProfile] = []
    for section in parser.sections():
        if section == "global":
            continue
        items = parser[section]
        url = items.get("url", "").strip()
        problem = url_problem(url) if url else "no url"
        if problem is not None:
            profiles.append(ImportedProfile(_profile_name(section), "", None,
                                            note=f"skipped: url {problem}"))
            continue
        notes: list[str] = []
        token: Secret | None = None
        raw_token = (items.get("private_token") or "").strip()
        if raw_token.startswith("helper:"):
            notes.append("private_token uses a helper command: not imported, log in with the token")
        elif raw_token:
            logsafe.register_secret(raw_token)
            problem = token_problem(raw_token)
            if problem is None:
                token = Secret(raw_token)
            else:
                notes.append(f"private_token not imported: {problem}")
        elif items.get("oauth_token") or items.get("job_token"):
            notes.append("only private_token is imported (oauth_token/job_token are short-lived)")
        else:
            notes.append("no private_token")
        ca_file: str | None = None
        verify = (items.get("ssl_verify") or parser.get("global", "ssl_verify", fallback="") or "").strip()
        if verify.lower() in ("false", "0", "no", "off"):
            notes.append("ssl_verify = false is not imported (use --insecure explicitly)")
        elif verify and verify.lower() not in ("true", "1", "yes", "on"):
            ca_file = verify
        profiles.append(ImportedProfile(_profile_name(section), normalise_url(url), token, ca_file,
                                        "; ".join(notes) or None))
    return PythonGitlabConfig(path, _profile_name(default) if default else None, profiles)
