"""Platform failures only from the platform's own words (issue 28, point 5)."""

from __future__ import annotations

from labdeck.logtext.cause import read_cause

TRAILER = "ERROR: Job failed: exit code 1\n"


def test_a_dns_failure_in_an_install_step_is_platform() -> None:
    log = ("$ pip install -r requirements.txt\n"
           "WARNING: Retrying (Retry(total=0)) after connection broken by 'NewConnectionError(...: "
           "[Errno -3] Temporary failure in name resolution')'\n"
           "ERROR: Could not find a version that satisfies the requirement requests\n" + TRAILER)
    answer = read_cause(log)
    assert answer.platform is not None and answer.platform.label == "DNS failure"
    assert answer.platform.line == 2


def test_curl_could_not_resolve_host_is_platform() -> None:
    log = "$ curl -fsSL https://get.example.com | sh\ncurl: (6) Could not resolve host: get.example.com\n" + TRAILER
    hit = read_cause(log).platform
    assert hit is not None and hit.label == "DNS failure"


def test_a_registry_lookup_failing_in_terraform_init_is_platform() -> None:
    """Go's resolver words (terraform, helm, docker) in the step that fetches providers and modules."""
    log = ("$ terraform init -input=false\nInitializing provider plugins...\n"
           "│ Error: Failed to query available provider packages\n│\n"
           "│ Could not retrieve the list of available versions for provider hashicorp/null: could not connect\n"
           "│ to registry.terraform.io: failed to request discovery document: Get\n"
           "│ \"https://registry.terraform.io/.well-known/terraform.json\": dial tcp:\n"
           "│ lookup registry.terraform.io on 10.255.255.53:53: no such host\n" + TRAILER)
    hit = read_cause(log).platform
    assert hit is not None and hit.label == "DNS failure" and hit.line == 8
    # The same words printed by `terraform plan` (the code's own provider call) are not the platform's.
    assert read_cause(log.replace("terraform init -input=false", "terraform plan")).platform is None


def test_a_tls_handshake_timeout_in_a_docker_pull_step_is_platform() -> None:
    log = ("$ docker pull registry.example.com/app:1.2\n"
           "Error response from daemon: Get \"https://registry.example.com/v2/\": net/http: TLS handshake timeout\n"
           + TRAILER)
    hit = read_cause(log).platform
    assert hit is not None and (hit.label == "TLS handshake timeout" or hit.label.startswith("image pull from"))


def test_the_same_words_in_an_assertion_are_not_platform() -> None:
    log = ("$ pytest\n"
           "    def test_reset():\n"
           ">       assert error == 'connection reset by peer'\n"
           "E       AssertionError: assert 'timeout' == 'connection reset by peer'\n"
           "FAILED tests/test_net.py::test_reset\n" + TRAILER)
    answer = read_cause(log)
    assert answer.platform is None
    assert answer.error is not None and answer.error.kind == "pytest"


def test_a_requests_error_raised_by_the_code_under_test_is_not_platform() -> None:
    log = ("$ python -m pytest tests\n"
           "Traceback (most recent call last):\n"
           '  File "client.py", line 9, in fetch\n'
           "    return requests.get(url, timeout=1)\n"
           "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.example.com', port=443): "
           "Max retries exceeded (Caused by NameResolutionError: Temporary failure in name resolution)\n"
           + TRAILER)
    assert read_cause(log).platform is None


def test_out_of_memory_from_the_runner() -> None:
    answer = read_cause("$ make test\nKilled\nERROR: Job failed: exit code 137\n")
    assert answer.platform is not None and answer.platform.label == "out of memory (exit code 137)"
    assert answer.error is not None and answer.error.text == "Killed"


def test_an_image_pull_before_any_command_names_its_registry() -> None:
    log = ('Running with gitlab-runner 17.2.0\nERROR: Job failed (system failure): failed to pull image '
           '"registry.example.com/ruby:3.3" with specified policies [always]: Get "https://registry.example.com/v2/"\n')
    hit = read_cause(log).platform
    assert hit is not None and hit.label == "image pull from registry.example.com failed"


def test_a_warning_the_passing_run_printed_too_is_not_platform() -> None:
    warning = "write /builds/x/cache: no space left on device\n"
    failing = "$ make test\n" + warning + "src/a.c:3:1: error: expected ';'\n" + TRAILER
    passing = "$ make test\n" + warning + "ok\nJob succeeded\n"
    assert read_cause(failing).platform is not None
    assert read_cause(failing, passing).platform is None


def test_a_timestamped_error_line_is_the_error_never_the_trailer() -> None:
    log = ("$ ./bin/upload\n2026-11-27T21:01:39Z INFO  start\n"
           "2026-11-27T21:01:39Z ERROR [req 7f3a] upload of build/a.tar.gz failed\n" + TRAILER)
    answer = read_cause(log)
    assert answer.error is not None and answer.error.line == 3
    assert answer.signature.startswith("<time> ERROR [req") or answer.signature.startswith("ERROR [req")
    assert "Job failed" not in answer.signature and answer.platform is None


def test_after_script_output_is_not_the_platform_but_the_runner_after_it_is() -> None:
    """What ``after_script`` prints ran after the job had failed; the runner's own lines that follow
    it (its ``Job failed`` mark, an artifact upload) are still the platform's."""
    cleanup = ("$ pytest\nE   assert 0\nFAILED tests/test_x.py::t\n"
               "Running after_script\n$ ./cleanup.sh\nrm: cannot write: no space left on device\n"
               "curl: (6) Could not resolve host: hooks.example.com\n")
    assert read_cause(cleanup + "Cleaning up project directory and file based variables\n" + TRAILER).platform is None
    oom = read_cause(cleanup + "ERROR: Job failed: exit code 137\n").platform
    assert oom is not None and oom.label == "out of memory (exit code 137)" and oom.line == 8
    upload = read_cause(cleanup + "Uploading artifacts for failed job\n"
                        "ERROR: Uploading artifacts as \"archive\" to coordinator... 503 Service Unavailable\n" + TRAILER)
    assert upload.platform is not None and upload.platform.line == 9


def test_the_byte_pass_and_the_gate_agree_on_plain_ascii_lines() -> None:
    """The scan trusts the byte pass over the picked lines (any case) for a plain ASCII line read
    as it is, and the platform gate does not look again: both must say the same of every such line."""
    import random

    from labdeck.logtext.cause import platform as gate_words
    from labdeck.logtext.cause import prefilter

    words = [*gate_words._GATE, "runne", "time out", "OOM", "ReSoLvE", "Cache", "4 29", "50", "E429", "Lost"]
    fillers = ["x", " ", "-", "error:", "1", "r", "R", "ss", "_", "ti", "med"]
    rng = random.Random(28)
    lines = []
    for _ in range(3000):
        parts = [rng.choice(words if rng.random() < 0.3 else fillers) for _ in range(rng.randrange(1, 8))]
        line = "".join(part.upper() if rng.random() < 0.3 else part for part in parts)
        lines.append(line)
    worded = set(prefilter.lines_with("\n".join(lines).encode(), gate_words._GATE) or ())
    gate = gate_words._gate_engine()
    for index, line in enumerate(lines):
        assert (index in worded) == gate(line.lower()), line


def test_the_set_names_every_platform_pattern_that_matches() -> None:
    """The platform patterns are searched only where one RE2 set call says they could match: on
    every line of the corpus (and words in other cases and scripts), each pattern that matches
    is among the set's candidates."""
    import importlib
    from pathlib import Path

    module = importlib.import_module("labdeck.logtext.cause.platform")
    candidates = module._build_candidates()
    corpus = Path(__file__).resolve().parents[1] / "corpus"
    texts = [line for path in sorted(corpus.rglob("*.log"))
             for line in path.read_text(encoding="utf-8", errors="replace").splitlines()]
    texts += ["CONNECTION RESET BY PEER", "ConnectTimeoutError: ſtatus 503 Service Unavailable", "exit code: 137",
              "OOMKilled", "no ſpace left on device", "http 502 bad gateway", "E429 too many requests",
              "Uploading artifacts... FATAL: timeout", "Kould not resolve host", "docker: Error response from daemon: Get \""]
    matched = 0
    for text in texts:
        found = candidates(text)
        for index, (_, _, pattern) in enumerate(module._PATTERNS):
            if pattern.search(text):
                matched += 1
                assert found is None or index in found, (text, pattern.pattern)
    assert matched > 20


def test_the_exception_line_test_says_what_its_pattern_says() -> None:
    """A line that reads as an exception or an assertion (not the platform's words) is told by a
    cheaper test than the pattern that defines it: both must agree on every corpus line and on
    random lines made of the pattern's own pieces."""
    import importlib
    import random
    from pathlib import Path

    module = importlib.import_module("labdeck.logtext.cause.platform")
    corpus = Path(__file__).resolve().parents[1] / "corpus"
    texts = [line for path in sorted(corpus.rglob("*.log"))
             for line in path.read_text(encoding="utf-8", errors="replace").split("\n")]
    pieces = [" ", "\t", "\u00a0", "E", ">", "a", "_", "1", ".", ":", "Error", "Exception", "assert", "expect",
              "é", "x", "\n"]
    rng = random.Random(28)
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randrange(8))) for _ in range(20000)]
    said = 0
    for text in texts:
        expected = module._EXCEPTION_LINE.match(text) is not None
        assert module._exception_line(text) == expected, repr(text)
        said += expected
    assert said > 100


def test_platform_words_in_coloured_lines_are_found() -> None:
    """Escapes around a line's words (the runner's colours) or inside one (``ti<ESC>[0mmed out``)
    do not hide a platform failure."""
    around = ("$ pip install requests\n"
              "\x1b[33mWARNING: Retrying after connection broken: Temporary failure in name resolution\x1b[0m\n"
              + TRAILER)
    hit = read_cause(around).platform
    assert hit is not None and hit.label == "DNS failure" and hit.line == 2
    inside = "$ pip install requests\nERROR: Read ti\x1b[0mmed out while fetching requests\n" + TRAILER
    hit = read_cause(inside).platform
    assert hit is not None and hit.label == "network timeout" and hit.line == 2
