"""Command line: ``labdeck`` (the console), ``login``, ``logout``, ``doctor``, ``audit``, ``triage``, ``explain``,
``follow``, ``serve``.

Everything that may block or prompt (token chain, keyring, passphrase, the startup probe) happens
here, before the TUI takes the terminal. No option takes a token value: argv is visible to every
user of the machine (``ps``) and kept in shell history.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from labdeck import __version__
from labdeck.base import logsafe
from labdeck.commands.session_setup import SessionError, SessionOptions, resolve_session

if TYPE_CHECKING:
    # Imported where a session is made: `labdeck explain` and `--help` never read the config.
    from labdeck.base.session import Session

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2

# httpx imports its own command-line client (click, rich.progress, pygments: ~50 ms at every start)
# when it is imported, and falls back to a stub when that fails; labdeck never runs it.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


def _common(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument("--profile", metavar="P", default=default,
                        help="profile from the config file (default: default_profile)")
    parser.add_argument("--log-file", metavar="FILE", default=default,
                        help="write a debug log (tokens redacted) to FILE")


def _tls_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    parser.add_argument("--ca-file", metavar="F", default=argparse.SUPPRESS if suppress else None,
                        help="PEM bundle of CA certificates to trust for this instance")
    parser.add_argument("--insecure", action="store_true",
                        default=argparse.SUPPRESS if suppress else False,
                        help="turn TLS certificate verification OFF (a red banner stays on screen)")


ENVIRONMENT_HELP = """\
instance URL, first hit wins:
  --url URL, the --profile's url, LABDECK_URL (or GITLAB_URL), the default profile
token sources, first hit wins:
  --token-stdin, LABDECK_TOKEN/GITLAB_TOKEN, the OS keyring, the encrypted file
  (--encrypted-store at login), the --insecure-storage file, a prompt

environment:
  LABDECK_URL, GITLAB_URL   instance root URL when neither --url nor --profile is given
  LABDECK_TOKEN, GITLAB_TOKEN
                            personal access token (never pass a token as an option)
  LABDECK_CONFIG            config file path
  LABDECK_LOG_FILE          debug log file (tokens redacted), like --log-file
  LABDECK_STORE_PASSPHRASE  passphrase of the encrypted token file
  LABDECK_KEYRING_TIMEOUT   seconds to wait for the OS keyring
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (public for the tests and the docs)."""
    parser = argparse.ArgumentParser(
        prog="labdeck",
        description="Keyboard-first console for GitLab-style instances. Without a command, opens the console.",
        epilog=ENVIRONMENT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"labdeck {__version__}")
    parser.add_argument("--url", metavar="URL",
                        help="instance root URL, e.g. https://gitlab.example.com (default: LABDECK_URL, "
                             "GITLAB_URL, then the profile's)")
    _common(parser, suppress=False)
    _tls_options(parser, suppress=False)
    parser.add_argument("--read-only", action="store_true", help="hide and refuse every change")
    parser.add_argument("--demo", action="store_true", help="run against a built-in simulator")
    parser.add_argument("--instances", type=int, default=1, metavar="N",
                        help="with --demo: N simulated instances on one board (spec and gitlab dialects)")
    parser.add_argument("--token-stdin", action="store_true", help="read the token from standard input")
    parser.add_argument("--theme", metavar="T", help="colour theme")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    login = commands.add_parser("login", help="validate a token and store it; write the profile")
    _common(login, suppress=True)
    _tls_options(login, suppress=True)
    login.add_argument("--url", default=argparse.SUPPRESS, help="instance root URL, e.g. https://gitlab.example.com")
    login.add_argument("--token-stdin", action="store_true", default=argparse.SUPPRESS,
                       help="read the token from standard input")
    login.add_argument("--insecure-storage", action="store_true",
                       help="store the token in a PLAINTEXT file (mode 0600) when no keyring is usable")
    login.add_argument("--encrypted-store", action="store_true",
                       help="store the token in an encrypted file (passphrase; needs 'cryptography')")
    login.add_argument("--import-python-gitlab", action="store_true",
                       help="import profiles (and their tokens, into the token store) from ~/.python-gitlab.cfg")

    logout = commands.add_parser("logout", help="remove the profile's stored token")
    _common(logout, suppress=True)

    doctor = commands.add_parser("doctor", help="check config, keyring, token, TLS, proxy and the instance")
    _common(doctor, suppress=True)
    _tls_options(doctor, suppress=True)
    doctor.add_argument("--token-stdin", action="store_true", default=argparse.SUPPRESS,
                        help="check the token given on standard input")
    doctor.add_argument("--read-only", action="store_true", default=argparse.SUPPRESS)

    audit = commands.add_parser("audit", help="show the local log of changes sent (newest last)")
    audit.add_argument("--profile", metavar="P", default=argparse.SUPPRESS,
                       help="only changes made with this profile (default: every profile)")
    audit.add_argument("--since", metavar="WHEN", help="only changes since WHEN: 30m, 2h, 1d, 1w or an ISO time (UTC)")
    audit.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")

    triage = commands.add_parser("triage", help="why did each failure fail, and whose is it (no TUI)")
    _common(triage, suppress=True)
    _tls_options(triage, suppress=True)
    triage.add_argument("--url", default=argparse.SUPPRESS, help="instance root URL")
    triage.add_argument("--token-stdin", action="store_true", default=argparse.SUPPRESS,
                        help="read the token from standard input")
    triage.add_argument("projects", nargs="*", metavar="PROJECT",
                        help="project paths or ids (default: the watched set)")
    triage.add_argument("--since", metavar="WHEN", default="24h",
                        help="the window: 30m, 24h, 2d, 1w or an ISO time (default 24h)")
    triage.add_argument("--json", action="store_true", help="print JSON: failures and clusters")

    follow = commands.add_parser("follow", help="the merged live log of many jobs of a pipeline (no TUI)")
    _common(follow, suppress=True)
    _tls_options(follow, suppress=True)
    follow.add_argument("--url", default=argparse.SUPPRESS, help="instance root URL")
    follow.add_argument("--token-stdin", action="store_true", default=argparse.SUPPRESS,
                        help="read the token from standard input")
    follow.add_argument("project", metavar="PROJECT", help="project path or id")
    follow.add_argument("pipeline", metavar="PIPELINE", help="pipeline id")
    follow.add_argument("jobs", nargs="*", metavar="JOB", help="job names or ids (default: every job)")
    follow.add_argument("--stage", metavar="NAME", help="only the jobs of this stage")
    follow.add_argument("--give-up-after", metavar="WAIT", default="5m",
                        help="exit 5 once no read succeeded for this long: 90s, 5m, 1h (default 5m); "
                             "meanwhile stderr says what is wrong (a refused token: exit 6 at once)")
    explain = commands.add_parser("explain", help="the cause of failed CI logs read from files (no server)")
    explain.add_argument("logs", nargs="+", metavar="LOG", help="log files ('-' reads standard input)")
    explain.add_argument("--json", action="store_true", help="one JSON object per line per file")
    explain.add_argument("--passing", metavar="LOG", help="the passing log of the same job: the baseline")

    commands.add_parser("serve", help="run the simulator (see `labdeck serve --help`)", add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run labdeck; returns the exit code. ``argv`` None: the process's own command line (the
    executable, which ends when this returns)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "serve":
        from labdeck.sim.cli import serve_main

        return int(serve_main(args_list[1:]) or 0)
    parser = build_parser()
    args = parser.parse_args(args_list)
    thresholds = gc.get_threshold()
    if args.command in _ONE_SHOT:
        gc.disable()  # until the command's imports are done (:func:`_collect_from_here`)
    logsafe.install()
    log_file = getattr(args, "log_file", None) or os.environ.get("LABDECK_LOG_FILE")
    if log_file:
        logsafe.configure_file_logging(log_file)
    if os.environ.get("LABDECK_DEBUG_TRACEMALLOC"):  # finding what grows in a console left open
        from labdeck.base import memtrace, paths

        memtrace.start_from_env(os.environ, paths.state_dir())
    try:
        if args.command == "login":
            return _login(args)
        if args.command == "logout":
            from labdeck.auth.login import Output, run_logout

            return run_logout(getattr(args, "profile", None), Output(sys.stdout, sys.stderr))
        if args.command == "doctor":
            return _doctor(args)
        if args.command == "audit":
            return _audit(args)
        if args.command == "triage":
            return _triage(args)
        if args.command == "follow":
            return _follow(args)
        if args.command == "explain":
            from labdeck.commands.explain import run_explain

            _collect_from_here()
            return run_explain(args.logs, as_json_lines=args.json, passing=args.passing, out=sys.stdout,
                               err=sys.stderr)
        with _collector_paused():
            return _console(args)
    except KeyboardInterrupt:
        sys.stderr.write("\nInterrupted.\n")
        return 130
    finally:
        if args.command in _ONE_SHOT:
            if argv is not None:  # main() called in a longer process (the tests) leaves it as it was
                gc.unfreeze()
                gc.set_threshold(*thresholds)
            # As the executable (argv None) the process ends on return: the imports' objects stay
            # frozen, out of the interpreter's last collection on its way out (unfrozen, that pass
            # visited them all: ~0.17 s of a warm `labdeck triage`'s ~1 s).
            gc.enable()


_ONE_SHOT = ("triage", "explain")
"""Commands that start, answer and exit: no garbage collection while they import."""


ONE_SHOT_YOUNG_PASS_EVERY = 50_000
"""Allocations between two young passes of a one-shot command once it runs (Python's default: 700).
What it reads (a warm triage round over 50 projects parses ~1,200 jobs) stays alive until it prints:
at 700 that round made 74 passes over it, ~40 ms of its ~1 s; at 50,000 it makes none, and a bigger
round still frees its cycles now and then."""


def _collect_from_here() -> None:
    """The collector back on once a one-shot command has imported what it runs: the modules' objects
    (all alive until the exit) are frozen out of its passes, which had been ~15 % of the imports'
    time (the same reason as :func:`_collector_paused` for the console), and young passes come
    :data:`ONE_SHOT_YOUNG_PASS_EVERY` allocations apart."""
    gc.freeze()
    gc.set_threshold(ONE_SHOT_YOUNG_PASS_EVERY, *gc.get_threshold()[1:])
    gc.enable()


def _login(args: argparse.Namespace) -> int:
    from labdeck.auth.login import LoginRequest, Output, run_login

    request = LoginRequest(
        profile=getattr(args, "profile", None), url=getattr(args, "url", None), token_stdin=args.token_stdin,
        insecure_storage=args.insecure_storage, encrypted_store=args.encrypted_store,
        import_python_gitlab=args.import_python_gitlab, ca_file=getattr(args, "ca_file", None),
        insecure=bool(getattr(args, "insecure", False)),
    )
    if request.insecure_storage and request.encrypted_store:
        sys.stderr.write("labdeck login: choose one of --insecure-storage and --encrypted-store\n")
        return EXIT_USAGE
    return run_login(request, Output(sys.stdout, sys.stderr), sys.stdin)


def _doctor(args: argparse.Namespace) -> int:
    from labdeck.auth.chain import TokenInputError, read_token_stream
    from labdeck.commands.doctor import DoctorOptions, run_doctor

    token = None
    if args.token_stdin:
        try:
            token = read_token_stream(sys.stdin)
        except TokenInputError as error:
            sys.stderr.write(f"labdeck doctor: {error}\n")
            return EXIT_USAGE
    options = DoctorOptions(profile=getattr(args, "profile", None), ca_file=getattr(args, "ca_file", None),
                            insecure=bool(getattr(args, "insecure", False)), stdin_token=token,
                            read_only=bool(getattr(args, "read_only", False)))
    return run_doctor(options, sys.stdout)


def _audit(args: argparse.Namespace) -> int:
    from labdeck.audit.read import format_json_lines, format_table, parse_since, read_audit

    try:
        since = parse_since(args.since) if args.since else None
    except ValueError as error:
        sys.stderr.write(f"labdeck audit: {error}\n")
        return EXIT_USAGE
    entries = read_audit(since, profile=getattr(args, "profile", None))
    if args.json:
        sys.stdout.write(format_json_lines(entries))
    elif entries:
        sys.stdout.write(format_table(entries) + "\n")
    else:
        sys.stdout.write("No changes recorded" + (" in that period" if since else "") + ".\n")
    return EXIT_OK


def _triage(args: argparse.Namespace) -> int:
    if not getattr(args, "insecure", False):
        from labdeck.base import trust

        # As the console does: OpenSSL reads the CA bundle in a thread, without the GIL, while the
        # command imports (a profile naming another bundle only wastes that read).
        trust.read_ahead(trust.checked_locations(getattr(args, "ca_file", None)))
    # labdeck uses no pydantic plugin: without this, the first validator built scans every
    # installed distribution's entry points for one (~50 ms of a warm run's ~1 s). A value the
    # user set stands.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from labdeck.commands.triage import parse_window, run_triage

    try:
        # A duration is measured back from the server's clock (its Date header), an ISO time is absolute.
        since: Any = parse_window(args.since)
    except ValueError as error:
        sys.stderr.write(f"labdeck triage: {error}\n")
        return EXIT_USAGE
    from labdeck.commands.instances import profile_names

    names = profile_names(getattr(args, "profile", None))
    if len(names) > 1:
        from labdeck.commands.triage import run_triage_instances

        sessions = _profile_sessions(args, names, "triage")
        if isinstance(sessions, int):
            return sessions
        _collect_from_here()
        return run_triage_instances(sessions, args.projects, since, args.json, sys.stdout, sys.stderr,
                                    profile_urls=_profile_urls(names))
    session = _read_only_session(args, "triage")
    if isinstance(session, int):
        return session
    _collect_from_here()
    return run_triage(session, args.projects, since, args.json, sys.stdout, sys.stderr)


def _profile_urls(names: Sequence[str]) -> dict[str, str]:
    """Each named profile's URL from the config file (none when the file cannot be read)."""
    from labdeck.base.config import ConfigError, load_config

    try:
        profiles = load_config().profiles
    except ConfigError:
        return {}
    return {name: profiles[name].url for name in names if name in profiles and profiles[name].url}


def _profile_sessions(args: argparse.Namespace, names: Sequence[str], command: str) -> list[tuple[str, Session | str]] | int:
    """One read-only session per profile (each with its own URL, stored token, TLS settings), or
    why a profile has none; the exit code after one line on stderr when the options cannot apply.

    A token given for one instance (``--token-stdin``, ``LABDECK_TOKEN``/``GITLAB_TOKEN``) would go
    to every instance: with several profiles each token comes from its own profile's store only.
    """
    from labdeck.commands.instances import environ_without_tokens, refuse_single_instance_options

    if refuse_single_instance_options(args, f"labdeck {command}"):
        return EXIT_USAGE
    environ, ignored = environ_without_tokens()
    sessions: list[tuple[str, Session | str]] = []
    for name in names:
        options = SessionOptions(profile=name, read_only=True, insecure=bool(getattr(args, "insecure", False)))
        try:
            sessions.append((name, resolve_session(options, interactive=False, check=False, environ=environ)))
        except SessionError as error:
            reason = logsafe.printable(str(error))
            if ignored:
                reason += f" ({' and '.join(ignored)} not used with several profiles)"
            sessions.append((name, reason))
    return sessions


def _read_only_session(args: argparse.Namespace, command: str) -> Session | int:
    """The session of a read-only command without the TUI (``triage``, ``follow``), or the exit
    code after one line on stderr saying why there is none."""
    from labdeck.auth.chain import TokenInputError, read_token_stream

    stdin_token = None
    if getattr(args, "token_stdin", False):
        try:
            stdin_token = read_token_stream(sys.stdin)
        except TokenInputError as error:
            sys.stderr.write(f"labdeck {command}: {error}\n")
            return EXIT_USAGE
    options = SessionOptions(profile=getattr(args, "profile", None), read_only=True,
                             ca_file=getattr(args, "ca_file", None), insecure=bool(getattr(args, "insecure", False)),
                             url=getattr(args, "url", None))
    try:
        # No startup check: the first read says as much about the token (one request less).
        return resolve_session(options, stdin_token=stdin_token, interactive=False, check=False)
    except SessionError as error:
        sys.stderr.write(f"labdeck {command}: {logsafe.printable(str(error), keep_newlines=True)}\n")
        return EXIT_FAILURE


def _follow(args: argparse.Namespace) -> int:
    from labdeck.commands.follow import run_follow
    from labdeck.operations.following.patience import parse_wait

    try:
        give_up_after = parse_wait(args.give_up_after)
    except ValueError as error:
        sys.stderr.write(f"labdeck follow: {logsafe.printable(str(error))}\n")
        return 2
    session = _read_only_session(args, "follow")
    if isinstance(session, int):
        return session
    return run_follow(session, args.project, args.pipeline, args.jobs, args.stage, sys.stdout, sys.stderr,
                      give_up_after=give_up_after)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No garbage collection while the console starts: the imports and the first screen allocate
    hundreds of thousands of objects that all stay alive, and the collector's passes over them cost
    ~10 % of the start-up. The console collects once and turns the collector back on a moment
    after its first screen (:func:`labdeck.ui.app.freeze_start_up_objects`); at the latest, on the
    way out of here."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _reattach_terminal() -> None:
    # The token came through a pipe on fd 0; the console needs the keyboard back.
    with contextlib.suppress(OSError):
        fd = os.open("/dev/tty", os.O_RDWR)
        os.dup2(fd, 0)
        os.close(fd)
        sys.stdin = open(0, closefd=False)  # fd 0 lives as long as the process


def _console(args: argparse.Namespace) -> int:
    _end_on_hang_up()
    if args.demo:
        if getattr(args, "instances", 1) > 1:
            from labdeck.commands.instances import run_demo_instances

            return run_demo_instances(args, _run)
        return _demo(args)
    from labdeck.commands.instances import console_profiles, run_console_instances

    names = console_profiles(args)
    if len(names) > 1:  # a board over several profiles: --profile prod,staging or `boards` in the config
        return run_console_instances(args, names, resolve_session, SessionOptions, SessionError, _run)
    stdin_token = None
    if args.token_stdin:
        from labdeck.auth.chain import TokenInputError, read_token_stream

        if sys.stdin.isatty():
            sys.stderr.write("labdeck: --token-stdin expects the token on a pipe, e.g. "
                             "`printenv MY_TOKEN | labdeck --token-stdin`\n")
            return EXIT_USAGE
        try:
            stdin_token = read_token_stream(sys.stdin)
        except TokenInputError as error:
            sys.stderr.write(f"labdeck: {error}\n")
            return EXIT_USAGE
        _reattach_terminal()
    options = SessionOptions(profile=args.profile, read_only=args.read_only, theme=args.theme,
                             ca_file=args.ca_file, insecure=args.insecure, url=args.url)
    from labdeck.base import allocator

    allocator.limit_arenas()  # before the first thread (see labdeck.base.allocator)
    if not options.insecure:
        from labdeck.base import trust

        trust.read_ahead(trust.checked_locations(options.ca_file))
    _preload_console()
    try:
        session = resolve_session(options, stdin_token=stdin_token, interactive=None)
    except SessionError as error:
        # The reason may quote the server (a TLS or redirect message): print it without controls.
        sys.stderr.write(f"labdeck: {logsafe.printable(str(error), keep_newlines=True)}\n")
        return EXIT_FAILURE
    return _run(session, options)


def _end_on_hang_up() -> None:
    """A console whose terminal hangs up ends, even when started with SIGHUP ignored.

    ``nohup``, some CI runners and job supervisors hand their children an ignored SIGHUP, and an
    ignored signal stays ignored across exec: until the console installs its own handler, a hang-up
    during start-up would be lost and the console would go on polling for a terminal that is gone.
    """
    import errno
    import signal

    if not hasattr(signal, "SIGHUP") or signal.getsignal(signal.SIGHUP) != signal.SIG_IGN:
        return
    import termios

    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    # The hang-up may have come, ignored, before this line. A hung-up terminal answers every
    # request with EIO (so isatty() is False too); a file or pipe answers ENOTTY and is left alone.
    try:
        termios.tcgetattr(sys.stdout.fileno())
    except termios.error as error:
        if error.args and error.args[0] == errno.EIO:
            raise SystemExit(128 + signal.SIGHUP) from None
    except (OSError, ValueError):  # no file descriptor behind sys.stdout
        pass


def _preload_console() -> None:
    """Import the console's UI in a background thread while the start-up check mostly waits on
    the server (two requests, TLS): the import is ~0.15 s of work that would otherwise follow."""

    def load() -> None:
        with contextlib.suppress(Exception):  # the import in _run reports any failure
            import labdeck.ui.app  # noqa: F401

    threading.Thread(target=load, name="labdeck-preload", daemon=True).start()


def _run(session: Session, options: SessionOptions | None = None, more: Sequence[Session] = ()) -> int:
    from labdeck.base import crash
    from labdeck.ui.app import run_console

    crash.install_crash_handler()
    # The write probe waits until the console has drawn its first frame (issue 24: on a slow link
    # two round trips in a row before anything shows is a long blank terminal).
    check_write = session.token is not None and not session.read_only
    if options is None:
        return int(run_console(session, check_write=check_write, more_sessions=more))

    def session_for_profile(name: str, own_token: bool = False) -> Session:
        # Called from a worker thread while the TUI owns the terminal: never prompt.
        # The profile's own URL: a --url given at start named the first instance only.
        switched = dataclasses.replace(options, profile=name, url=None, ca_file=None if own_token else options.ca_file)
        # ``own_token`` (another instance beside this one, `:board all`): never the environment's token.
        from labdeck.auth.chain import TOKEN_ENV

        environ = {key: value for key, value in os.environ.items() if key not in TOKEN_ENV} if own_token else None
        # The console is already drawn: check write access now (it switches to read-only at once).
        return resolve_session(switched, stdin_token=None, interactive=False, check_write=True, environ=environ)

    return int(run_console(session, session_for_profile=session_for_profile, check_write=check_write,
                           more_sessions=more))


def _demo(args: argparse.Namespace) -> int:
    from labdeck.base import trust
    from labdeck.base.secret import Secret
    from labdeck.base.session import Session
    from labdeck.sim.core.accounts import DEMO_TOKENS
    from labdeck.sim.demo_process import DemoProcess, DemoProcessError

    # The simulator starts in its own process (another core) while the console imports its UI.
    demo = DemoProcess.spawn()
    trust.read_ahead(trust.trust_locations(True, None, os.environ))  # the client is built with it
    try:
        import labdeck.ui.app  # noqa: F401  (meanwhile)

        try:
            base_url = demo.wait_ready()
        except DemoProcessError as error:
            sys.stderr.write(f"labdeck: {error}\n")
            return EXIT_FAILURE
        token = Secret(DEMO_TOKENS["admin"])
        logsafe.register_secret(token)
        session = Session(base_url=base_url, token=token, token_source="demo", demo=True,
                          profile="demo", read_only=args.read_only, theme=args.theme)
        return _run(session)
    finally:
        demo.stop()
