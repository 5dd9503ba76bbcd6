"""The console over several profiles (issue 30): ``labdeck --profile prod,staging``, ``boards =
["prod", "staging"]`` in the config, and ``labdeck --demo --instances 2``.

Each profile gets a session of its own: its URL, its TLS settings and a token from its own
profile's chain. A token given for one instance (``--token-stdin``, ``LABDECK_TOKEN`` or
``GITLAB_TOKEN``) would go to every instance, so with several profiles the environment's tokens are
not used: each comes from its profile's store (keyring, encrypted or plaintext file) or a prompt.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from labdeck.base import logsafe
from labdeck.base.session import Session

EXIT_USAGE = 2
EXIT_FAILURE = 1
DEMO_DIALECTS = ("spec", "gitlab")
"""``--demo --instances N``: the dialect of each instance in turn."""

Run = Callable[..., int]


def profile_names(value: str | None) -> list[str]:
    """``--profile prod,staging``: the profiles named, in order, each once."""
    names = [name.strip() for name in (value or "").split(",") if name.strip()]
    return list(dict.fromkeys(names))


def refuse_single_instance_options(args: argparse.Namespace, prefix: str) -> bool:
    """True (after one line on stderr) when an option names one instance (``--token-stdin``,
    ``--url``, ``--ca-file``): with several profiles each uses its own settings and stored token."""
    for option, given in (("--token-stdin", getattr(args, "token_stdin", False)), ("--url", getattr(args, "url", None)),
                          ("--ca-file", getattr(args, "ca_file", None))):
        if given:
            sys.stderr.write(f"{prefix}: {option} names one instance; with several profiles each profile's own "
                             "settings and stored token are used\n")
            return True
    return False


def environ_without_tokens() -> tuple[dict[str, str], list[str]]:
    """The environment without ``LABDECK_TOKEN``/``GITLAB_TOKEN`` (one token would go to every
    instance), and the names of those that were set."""
    from labdeck.auth.chain import TOKEN_ENV

    environ = {name: value for name, value in os.environ.items() if name not in TOKEN_ENV}
    return environ, [name for name in TOKEN_ENV if os.environ.get(name)]


def console_profiles(args: argparse.Namespace) -> list[str]:
    """The profiles the console opens: those of ``--profile a,b``; without ``--profile`` and
    ``--url``, the config file's ``boards`` (when it names several)."""
    named = profile_names(getattr(args, "profile", None))
    if named or getattr(args, "url", None):
        return named
    try:
        from labdeck.base.config import load_config

        return list(load_config().boards)
    except Exception:  # a broken config file is reported by the usual start-up path
        return []


def run_console_instances(args: argparse.Namespace, names: Sequence[str], resolve: Callable[..., Session],
                          options_type: Callable[..., Any], error_type: type[Exception], run: Run) -> int:
    """Resolve one session per profile, then run the console over all of them (the first is the
    primary instance)."""
    if refuse_single_instance_options(args, "labdeck"):
        return EXIT_USAGE
    environ, ignored = environ_without_tokens()
    sessions: list[Session] = []
    options = None
    for name in names:
        options = options_type(profile=name, read_only=args.read_only, theme=args.theme,
                               insecure=args.insecure)
        try:
            sessions.append(resolve(options, interactive=None, environ=environ))
        except error_type as error:
            reason = logsafe.printable(str(error), keep_newlines=True)
            if ignored:
                reason += f"\n({' and '.join(ignored)} not used with several profiles: each token comes from its " \
                          "own profile's store)"
            sys.stderr.write(f"labdeck: {name}: {reason}\n")
            return EXIT_FAILURE
    first, *more = sessions
    primary_options = options_type(profile=names[0], read_only=args.read_only, theme=args.theme,
                                   insecure=args.insecure)
    return run(first, primary_options, more)


def run_demo_instances(args: argparse.Namespace, run: Run) -> int:
    """``labdeck --demo --instances N``: N simulators in child processes (seeds 42, 43 …; spec and
    gitlab dialects in turn), one board over all of them."""
    from labdeck.base import trust
    from labdeck.base.secret import Secret
    from labdeck.sim.core.accounts import DEMO_TOKENS
    from labdeck.sim.demo_process import DemoProcess, DemoProcessError

    count = max(1, min(int(args.instances), 4))
    children = [DemoProcess.spawn(seed=42 + index, dialect=DEMO_DIALECTS[index % len(DEMO_DIALECTS)])
                for index in range(count)]
    trust.read_ahead(trust.trust_locations(True, None, os.environ))
    try:
        import labdeck.ui.app  # noqa: F401  (meanwhile)

        sessions: list[Session] = []
        for index, child in enumerate(children):
            try:
                base_url = child.wait_ready()
            except DemoProcessError as error:
                sys.stderr.write(f"labdeck: {error}\n")
                return EXIT_FAILURE
            token = Secret(DEMO_TOKENS["admin"])
            logsafe.register_secret(token)
            dialect = DEMO_DIALECTS[index % len(DEMO_DIALECTS)]
            sessions.append(Session(base_url=base_url, token=token, token_source="demo", demo=True,
                                    profile=f"demo-{dialect}" if index < len(DEMO_DIALECTS) else f"demo-{index + 1}",
                                    short_name="prod" if index == 0 else ("staging" if index == 1 else None),
                                    read_only=args.read_only, theme=args.theme, start="board"))
        first, *more = sessions
        return run(first, None, more)
    finally:
        for child in children:
            child.stop()


__all__ = ["console_profiles", "profile_names", "run_console_instances", "run_demo_instances"]
