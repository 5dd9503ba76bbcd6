"""What the commands of a simulated job print: package installs, tests (unit and browser), linters,
docker's progress display, compilers and deployments, sized to a line budget, failing when asked."""

from __future__ import annotations

import random

GREEN = "\x1b[32;1m"
RED = "\x1b[31;1m"
YELLOW = "\x1b[0;33m"
CYAN = "\x1b[36;1m"
RESET = "\x1b[0;m"

_PACKAGES = ("requests", "urllib3", "certifi", "idna", "charset-normalizer", "pyyaml", "jinja2", "markupsafe",
             "click", "attrs", "packaging", "pluggy", "iniconfig", "pytest", "coverage", "numpy", "pydantic")
MODULES = ("auth", "billing", "cache", "cli", "config", "db", "events", "export", "http", "importer", "jobs",
            "mailer", "models", "notify", "parser", "queue", "render", "search", "storage", "sync", "users")


def command_output(rng: random.Random, command: str, count: int, fail: bool) -> list[str]:
    """About ``count`` lines of what ``command`` prints; the failing kind when ``fail``."""
    if "pip" in command or "npm" in command or "bundle" in command or "go mod" in command:
        return _install_output(rng, count)
    if "playwright" in command:
        return _e2e_output(rng, count, fail)
    if "lint" in command or "ruff" in command or "eslint" in command:
        return _lint_output(rng, count, fail)
    if "test" in command or "pytest" in command:
        return _test_output(rng, count, fail)
    if "docker" in command:
        return _docker_output(rng, count)
    if "deploy" in command or "kubectl" in command or "helm" in command:
        return _deploy_output(rng, count, fail)
    return _build_output(rng, count, fail)


def _install_output(rng: random.Random, count: int) -> list[str]:
    lines: list[str] = []
    while len(lines) < count:
        package = rng.choice(_PACKAGES)
        version = f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
        size = rng.uniform(0.05, 18.0)
        lines.append(f"Collecting {package}=={version}\n")
        wheel = f"  Downloading {package}-{version}-py3-none-any.whl ({size:.1f} MB)"
        # Each redraw is its own write, so a follower sees the bar move.
        for step in range(1, 4):
            filled = step * 8
            lines.append(f"{wheel}  |{'█' * filled}{' ' * (32 - filled)}| {size * step / 4:.1f} MB\r")
        lines.append(f"{wheel}  |{'█' * 32}| {size:.1f} MB\n")
    lines.append(f"Successfully installed {' '.join(rng.sample(_PACKAGES, 5))}\n")
    return lines


def _test_output(rng: random.Random, count: int, fail: bool) -> list[str]:
    lines = ["============================= test session starts ==============================\n",
             "platform linux -- Python 3.11.9, pytest-8.2.0, pluggy-1.5.0\n",
             f"collected {count * 12} items\n", "\n"]
    passed = failed = 0
    for index in range(max(count - 8, 1)):
        module = MODULES[index % len(MODULES)]
        marks = "".join(rng.choice("......s") for _ in range(rng.randint(4, 30)))
        if fail and index == count // 2:
            marks = marks[:-1] + "F"
            failed += 1
        passed += marks.count(".")
        lines.append(f"tests/test_{module}.py {marks}{' ' * max(40 - len(marks), 1)}[{(index + 1) * 100 // max(count - 8, 1):3d}%]\n")
    if fail:
        module = MODULES[count // 2 % len(MODULES)]
        lines += [
            "\n=================================== FAILURES ===================================\n",
            f"\x1b[31m\x1b[1m____________________________ test_{module}_roundtrip ____________________________\x1b[0m\n",
            f"    def test_{module}_roundtrip():\n",
            ">       assert decode(encode(sample)) == sample\n\x1b[1m\x1b[31mE       AssertionError: assert {'id': 3} == {'id': 4}\x1b[0m\n",
            f"\x1b[31m=========== {failed} failed, {passed} passed in {rng.uniform(3, 90):.2f}s ===========\x1b[0m\n",
        ]
    else:
        lines.append(f"\x1b[32m================= {passed} passed in {rng.uniform(3, 90):.2f}s =================\x1b[0m\n")
    return lines


def _e2e_output(rng: random.Random, count: int, fail: bool) -> list[str]:
    """Browser tests; the failure is the flaky kind (a timeout waiting for the page)."""
    specs = ("login", "checkout", "search", "settings", "profile", "cart", "orders")
    lines = [f"Running {count * 3} tests using 4 workers\n"]
    for index in range(max(count - 6, 1)):
        name = specs[index % len(specs)]
        lines.append(f"  \x1b[32m✓\x1b[39m  {index + 1} [chromium] › {name}.spec.ts:{rng.randint(5, 90)}:5 › "
                     f"{name} works ({rng.randint(300, 9000)}ms)\n")
    if fail:
        lines += [
            f"  \x1b[31m✘\x1b[39m  {count} [chromium] › checkout.spec.ts:41:5 › pays with a saved card (30.0s)\n",
            "\n  1) [chromium] › checkout.spec.ts:41:5 › pays with a saved card\n\n",
            "    TimeoutError: page.waitForSelector: Timeout 30000ms exceeded.\n",
            "    waiting for locator('[data-test=order-confirmation]') to be visible\n\n",
            f"  \x1b[31m1 failed\x1b[39m\n  \x1b[32m{count * 3 - 1} passed\x1b[39m ({rng.randint(40, 200)}s)\n",
        ]
    else:
        lines.append(f"\n  \x1b[32m{count * 3} passed\x1b[39m ({rng.randint(40, 200)}s)\n")
    return lines


def _docker_output(rng: random.Random, count: int) -> list[str]:
    """docker's own progress display: cursor-up and erase-line sequences, a window title, a link.

    Real logs carry these; a client must strip everything but SGR before rendering."""
    services = ("db", "cache", "queue", "web")
    lines = ["\x1b]0;docker compose up\x07"]
    for service in services:
        lines.append(f"[+] Running 0/{len(services)}\n ⠿ Container ci-{service}-1  Creating\n")
    for step in range(max(count // 3, 2)):
        service = services[step % len(services)]
        lines.append(f"\x1b[2A\x1b[2K[+] Running {step % len(services) + 1}/{len(services)}\n\x1b[2K ⠿ Container ci-{service}-1  "
                     f"{'Started' if step % 3 == 2 else 'Starting'}\n")
    lines.append("See \x1b]8;;https://docs.docker.com/compose/\x1b\\the compose docs\x1b]8;;\x1b\\ for details\n")
    lines.append(f"{GREEN}All {len(services)} services are healthy{RESET}\n")
    return lines


def _lint_output(rng: random.Random, count: int, fail: bool) -> list[str]:
    lines = [f"Checking {rng.randint(40, 400)} files\n"]
    if fail:
        for index in range(max(count // 4, 2)):
            module = MODULES[index % len(MODULES)]
            lines.append(f"\x1b[1msrc/{module}.py\x1b[0m:{rng.randint(1, 400)}:{rng.randint(1, 80)}: "
                         f"\x1b[1;31mF401\x1b[0m `os` imported but unused\n")
        lines.append(f"Found {max(count // 4, 2)} errors.\n")
    else:
        lines.append("\x1b[32mAll checks passed!\x1b[0m\n")
    return lines


def _build_output(rng: random.Random, count: int, fail: bool) -> list[str]:
    lines = []
    for index in range(max(count - 3, 1)):
        module = MODULES[index % len(MODULES)]
        if index % 17 == 5:
            lines.append(f"{YELLOW}src/{module}.c:{rng.randint(10, 900)}:{rng.randint(1, 80)}: warning: unused variable 'tmp' [-Wunused-variable]{RESET}\n")
        else:
            lines.append(f"  CC       src/{module}/{module}_{index % 9}.o\n")
    if fail:
        lines.append(f"\x1b[1msrc/{rng.choice(MODULES)}.c:42:7: \x1b[31merror:\x1b[0m\x1b[1m expected ';' before '}}' token\x1b[0m\n")
        lines.append("make: *** [Makefile:31: all] Error 1\n")
    else:
        lines.append("  LD       build/app\n")
        lines.append(f"Build finished: build/app ({rng.randint(200, 9000)} KiB)\n")
    return lines


def _deploy_output(rng: random.Random, count: int, fail: bool) -> list[str]:
    lines = [f"Deploying revision {rng.getrandbits(32):08x} to {rng.choice(('staging', 'production', 'review'))}\n"]
    for index in range(max(count - 3, 1)):
        lines.append(f"deployment.apps/web-{index % 4} rolling update: {index % 4 + 1} of 4 updated replicas are available...\n")
    if fail:
        lines.append(f"{RED}error: deployment \"web-0\" exceeded its progress deadline{RESET}\n")
    else:
        lines.append(f"{CYAN}deployment \"web\" successfully rolled out{RESET}\n")
    return lines
