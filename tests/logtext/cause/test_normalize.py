"""One normalization for signatures and passing-log matching: volatile parts go, names stay."""

from __future__ import annotations

from labdeck.logtext.cause import normalize


def test_volatile_parts_become_stand_ins() -> None:
    line = ("\x1b[31m2026-11-02T09:00:01.123Z ERROR: upload to https://artifacts.example.com:8443/x failed: "
            "id 3f2a9c1d0e7b request 123e4567-e89b-12d3-a456-426614174000 from 10.0.3.7:51234 "
            "in /tmp/build-8812/out.txt after 12.5s (attempt 3)\x1b[0m")
    assert normalize(line) == ("<time> ERROR: upload to https://artifacts.example.com:<port>/x failed: id <hex> "
                               "request <uuid> from <ip> in <tmp>/out.txt after <dur> (attempt <n>)")


def test_module_names_are_kept() -> None:
    assert normalize("No module named 'yaml'") != normalize("No module named 'toml'")


def test_file_names_are_kept_line_numbers_are_not() -> None:
    sync = normalize("src/sync.c:3:10: error: expected ';' before '}' token")
    assert sync == normalize("src/sync.c:57:3: error: expected ';' before '}' token")
    assert sync != normalize("src/cache.c:3:10: error: expected ';' before '}' token")


def test_names_with_digits_are_names() -> None:
    assert normalize("ERROR: py311: commands failed") != normalize("ERROR: py312: commands failed")
    assert normalize("--- FAIL: TestAdd2 (0.01s)") == "--- FAIL: TestAdd2 (<dur>)"
    assert normalize("host db-1.internal unreachable") != normalize("host cache-1.internal unreachable")


def test_counts_and_durations_go() -> None:
    assert normalize("Tests run: 12, Failures: 1, Time elapsed: 0.3 s") == normalize(
        "Tests run: 40, Failures: 3, Time elapsed: 12 s")


def test_a_file_under_a_temporary_folder_keeps_its_name() -> None:
    """The folders under /tmp are volatile, the file is not: two compile errors in two files of a
    checkout under /tmp are two signatures, and the same file in two temporary folders is one."""
    first = normalize("[ERROR] /tmp/build-81/src/main/java/com/acme/Discounts.java:[16,92] cannot find symbol")
    other_file = normalize("[ERROR] /tmp/build-81/src/main/java/com/acme/Invoices.java:[16,92] cannot find symbol")
    other_folder = normalize("[ERROR] /tmp/build-97/src/main/java/com/acme/Discounts.java:[3,5] cannot find symbol")
    assert "Discounts.java" in first
    assert first != other_file
    assert first == other_folder


def test_a_long_line_normalizes_as_if_read_whole() -> None:
    """A long line is normalized up to a space no replacement spans (read whole, pip's list of 300
    versions cost a millisecond): the answer is the same as normalizing it whole, for lines of
    every volatile part, spaces after digits and names included."""
    import random

    from labdeck.logtext.cause.normalize import MAX_SIGNATURE, _normalized

    def whole(line: str) -> str:
        text = _normalized(line)
        return text if len(text) <= MAX_SIGNATURE else text[: MAX_SIGNATURE - 1] + "…"

    parts = ["2026-11-02", "2026-11-02 09:00:01", "09:00:01.5", "T10:00", "12.5 ms", "3 s", "7", "1.2.3", "0x1f",
             "3f2a9c1d0e7b", "deadbeefcafe", "123e4567-e89b-12d3-a456-426614174000", "10.0.3.7:51234", "[::1]:80",
             "example.com:8443", "localhost:3000", "/tmp/build-8812/out.txt", "/var/folders/x y", "sha256:" + "ab" * 10,
             "py311", "test_add2", "name", "(from", "versions:", "a,", "é", "٣", "\t", "  ", " ", "", "...", "x."]
    # Parts that shrink a lot (space runs, long times and ids), so that the part before the cut
    # is sometimes only just longer than kept and a wrong cut would show in the answer.
    shrinking = [" " * 40, "\t" * 30, "2026-11-02T09:00:01.123456+02:00", "123e4567-e89b-12d3-a456-426614174000",
                 "0123456789abcdef" * 4, "12 ", "12.5", " ms", " 09:00:01"]
    # A duration right at the cut: ``12.5 ms`` is one ``<dur>``, never ``<n>`` then ``ms``.
    at_the_cut = "ab " * 66 + " " * 198 + "12.5 ms and more words after it " * 3
    assert normalize(at_the_cut) == whole(at_the_cut)
    rng = random.Random(28)
    for _ in range(1500):  # 4,000 took 10 s of CPU in make test
        pool = shrinking if rng.random() < 0.5 else parts
        line = "".join(rng.choice(pool) + rng.choice([" ", "", ", ", "  ", "\t", "1 ", ":", "5 "])
                       for _ in range(rng.randrange(20, 200)))
        assert normalize(line) == whole(line), line


def test_the_quick_patterns_replace_what_the_plain_ones_did() -> None:
    """The replacements written to start with their digit or colon (and those searched for a quick
    sign first) replace exactly what the plain patterns did, on generated text of digits, dots, names,
    units, hosts and ports."""
    import importlib
    import random
    import re

    module = importlib.import_module("labdeck.logtext.cause.normalize")

    plain = {
        "<dur>": re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds?|m|min|minutes?|h)\b"),
        "<n>": re.compile(r"(?<!\w)\d+(?:\.\d+)*(?![A-Za-z_])"),
        ":<port>": re.compile(r"(?<=[A-Za-z0-9]\.[a-z]{2})(?::\d{2,5})\b|(?<=[A-Za-z0-9]\.[a-z]{3})(?::\d{2,5})\b|"
                              r"(?<=localhost)(?::\d{2,5})\b"),
    }

    def by_plain(text: str) -> str:
        for pattern, stand_in, _, _, _, _ in module._REPLACEMENTS:
            text = plain.get(stand_in, pattern).sub(stand_in, text)
        return " ".join(text.split())

    pieces = ["1", "12", "3.5", "0", "٣", "a", "x1", "_", ".", ":", ":80", ":8443", " ", "\t", "ms", "s", "min", "h",
              "µs", "sec", "seconds", "localhost", "db.io", "example.com", "x.de", "a.b.cd", "deadbeef", "abc1234", "0x1f", "-", "/",
              "py311", "e", "F", "(", ")", "'", "2026-11-02", "09:00:01"]
    rng = random.Random(28)
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 25)))
        assert module._normalized(text) == by_plain(text), text
