"""Profile, token chain, TLS and the start-up check made into a :class:`Session` for the console
and the one-shot commands (``resolve_session``), before the TUI takes the terminal."""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    # Imported where a session is made: `labdeck explain` and `--help` never read the config.
    from labdeck.auth.probe import TlsSettings
    from labdeck.base.secret import Secret
    from labdeck.base.session import Session


class SessionError(Exception):
    """The console cannot start: ``str()`` says why and what to do."""


@dataclasses.dataclass
class SessionOptions:
    """The console's command-line choices that shape a :class:`Session`."""

    profile: str | None = None
    read_only: bool = False
    theme: str | None = None
    ca_file: str | None = None
    insecure: bool = False
    url: str | None = None
    """``--url``: the instance to open, whatever the profiles say."""


def resolve_session(options: SessionOptions, *, stdin_token: Secret | None = None,
                    interactive: bool | None = None, check: bool = True, check_write: bool = False,
                    environ: dict[str, str] | None = None) -> Session:
    """Profile, token (chain), TLS and the startup check → a Session, or :class:`SessionError`.

    ``interactive=False`` never prompts (used while the console runs); ``None`` prompts when a
    terminal is attached. ``check=False`` skips the startup check (a read-only command whose first
    request says as much about the token). ``check_write``: also probe write access now (otherwise
    the console does, after its first frame). ``environ``: the environment the token chain reads
    (default ``os.environ``).
    """
    from labdeck.auth import probe
    from labdeck.auth.chain import TokenChain, TokenInputError, resolve_url
    from labdeck.base.config import ConfigError, load_config, url_problem
    from labdeck.base.session import Session

    try:
        config = load_config()
    except ConfigError as error:
        raise SessionError(str(error)) from None
    profile, url, origin = resolve_url(config, options.profile, url=options.url)
    if options.profile and profile is None:
        known = ", ".join(sorted(config.profiles)) or "none"
        raise SessionError(f"no profile named '{options.profile}' in {config.path} (profiles: {known})")
    if not url:
        raise SessionError("no instance configured. Run `labdeck --url https://… ` with LABDECK_TOKEN set, "
                           "`labdeck login --url https://… --token-stdin`, set LABDECK_URL and LABDECK_TOKEN, "
                           "or try `labdeck --demo`.")
    if (problem := url_problem(url)) is not None:
        where = "--url" if origin == "--url" else origin.removeprefix("env ")
        raise SessionError(f"{where} {problem}")
    name = profile.name if profile else _profile_name(config, options.profile, url, origin)
    chain = TokenChain(interactive=interactive, environ=environ)
    try:
        resolution = chain.resolve(name, url, stdin_token=stdin_token, allow_prompt=interactive is not False)
    except TokenInputError as error:
        raise SessionError(f"{error}. Run `labdeck login --profile {name} --url {url} --token-stdin` with the "
                           "token exactly as the instance showed it.") from None
    if resolution.token is None:
        reasons = "".join(f"\n  - {note}" for note in resolution.notes)
        # A caller that hands its own environment has taken the token variables out (several
        # instances at once: one token in the environment would go to all of them).
        or_env = ", or set LABDECK_TOKEN" if environ is None else ""
        raise SessionError(f"no token for {url}.{reasons}\nRun `labdeck login --profile {name} --url {url} "
                           f"--token-stdin`{or_env}. `labdeck doctor` explains more.")
    ca_file = options.ca_file or (profile.ca_file if profile else None)
    tls = probe.tls_settings(ca_file, options.insecure)
    if tls.problem:
        raise SessionError(tls.problem)
    session = Session(
        base_url=url, token=resolution.token, token_source=resolution.source, profile=name,
        read_only=bool(options.read_only or (profile and profile.read_only)),
        theme=options.theme or (profile.theme if profile else None) or config.ui.theme,
        keymap=dict(config.keymap), ca_file=tls.ca_file, insecure=options.insecure,
        insecure_storage=resolution.insecure_storage, start=profile.start if profile else "projects",
        board=config.board, alerts=config.alerts, short_name=profile.short if profile else None,
    )
    problem = startup_check(session, tls, check_write=check_write) if check else None
    if problem is not None:
        raise SessionError(problem)
    return session


def _profile_name(config: Any, wanted: str | None, url: str, origin: str) -> str:
    """The name a session without a matching profile goes by: for an instance given by ``--url`` or
    the environment that no profile has, its host (what ``labdeck login --profile`` would save)."""
    if wanted or origin.startswith("profile") or origin == "none":
        return str(config.selected_profile_name(wanted))
    netloc = urlsplit(url).netloc.rsplit("@", 1)[-1]
    return re.sub(r"[^A-Za-z0-9_.-]", "-", netloc)[:64] or "default"


def startup_check(session: Session, tls: TlsSettings, *, check_write: bool = False) -> str | None:
    """Check the token before the console starts (one round trip: ``GET /user``); with
    ``check_write``, also whether it may write and switch to read-only when it may not. The
    console itself runs that write check after its first frame (``run_console(check_write=…)``).

    Returns an error message when the token is rejected (naming its source); an unreachable instance
    is not fatal here (the console shows the connection state and retries).
    """
    from labdeck.auth import probe

    if session.token is None:
        return None
    check = probe.check_token(session.base_url, session.token, tls,
                              read_only=session.read_only or not check_write)
    if check.user.outcome == "rejected":
        return (f"the token from {session.token_source} was rejected by {session.base_url} (401). "
                f"Run `labdeck login --profile {session.profile}` with a new token.")
    if check.user.outcome in ("tls", "redirect"):
        return check.user.message
    if check_write and check.write is not None and check.write.access == "read-only":
        session.read_only = True
        _set_if_field(session, "read_only_reason", check.write.reason)
    return None


def _set_if_field(session: Session, name: str, value: object) -> None:
    if name in {f.name for f in dataclasses.fields(session)}:
        setattr(session, name, value)
