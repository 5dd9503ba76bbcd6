"""A third held-out batch, made after the second batch's fixes and scored before any further change:
Python's default logging format, an auth server's JSON error, compileall, perl -c, make without a
makefile, a Go test that does not build, node --check, a tar of a file that is not gzip, a Ruby
KeyError from -e, a rejected git push, an expiring certificate."""

from __future__ import annotations

from case import Case

PY = "python:3.11-slim"
GIT = ("git init -q . && git add -A && git -c user.email=ci@example.com -c user.name=ci commit -qm init"
       " && rm -rf ../hz_remote.git ../hz_other && git clone -q --bare . ../hz_remote.git"
       " && git clone -q ../hz_remote.git ../hz_other && cd ../hz_other"
       " && git -c user.email=dev@example.com -c user.name=dev commit -q --allow-empty -m 'hotfix on main'"
       " && git push -q origin HEAD && cd - >/dev/null && git remote add origin ../hz_remote.git"
       " && git -c user.email=ci@example.com -c user.name=ci commit -q --allow-empty -m 'release 2.5.0'")

CASES: list[Case] = [
    Case("python", "logging_critical", "hz_misc", "gitlab",
         ["python --version", "python -m app.sync"],
         r"^CRITICAL:app.sync:", None, "log-level",
         "WAREHOUSE_URL is not set (logged at CRITICAL, then an INFO line)", image=PY),
    Case("python", "json_error_response", "hz_misc", "github",
         ["python -m app.token"],
         r'^\{"error": "invalid_grant"', None, "json",
         "the auth server rejects the expired CI token (invalid_grant)", image=PY),
    Case("python", "compileall", "hz_misc", "gitlab",
         ["python -m compileall -q src"],
         r"^\*\*\* Error compiling", r"^SyntaxError", "traceback",
         "src/legacy.py line 5: def without ':'", image=PY),
    Case("perl", "compile_check", "hz_misc", "travis",
         ["perl -c check.pl"],
         r"^syntax error at check.pl line 9", None, "compiler",
         "check.pl: a missing ';' after print (line 8), reported at line 9", image="perl:5.36"),
    Case("gnu-make", "no_makefile", "hz_misc", "gitlab",
         ["ls", "make"],
         r"No targets specified and no makefile found", None, "make",
         "the Makefile was renamed (Makefile.disabled)", image="gcc:12"),
    Case("go", "test_build_failed", "hz_misc", "jenkins",
         ["cd gosvc && go vet ./calc/calc.go", "cd gosvc && go test ./..."],
         r"^# example.com/gosvc/calc", r"undefined: Mul", "compiler",
         "calc_test.go uses Mul, which does not exist", image="golang:1.19"),
    Case("node", "check_syntax", "hz_misc", "gitlab",
         ["node --version", "node --check check.js"],
         r"check.js:3$", r"^SyntaxError", "traceback",
         "check.js line 3: missing ) after argument list", image="node:20-bookworm"),
    Case("tar", "not_gzip", "hz_misc", "github",
         ["ls -la release.tar.gz", "tar xzf release.tar.gz"],
         r"^gzip: stdin: not in gzip format", None, "shell",
         "release.tar.gz is not a gzip archive (a text file was uploaded)", image="debian:12"),
    Case("ruby", "key_error", "hz_misc", "gitlab",
         ["ruby --version", "ruby -e 'env = ENV.fetch(\"DEPLOY_ENV\"); puts \"deploying to #{env}\"'"],
         r"^-e:1:in", r"^\s+from -e:1", "exception",
         "DEPLOY_ENV is not set (KeyError from ENV.fetch)", image="ruby:3.1"),
    Case("git", "push_rejected", "hz_misc", "gitlab",
         ["git log --oneline -1", "git push origin HEAD:master"],
         r"^ ! \[rejected\]", r"^error: failed to push", "git",
         "main moved on (a hotfix); the release commit is not a fast-forward", image="debian:12",
         prepare=[GIT]),
    Case("openssl", "cert_expiring", "hz_misc", "gitlab",
         ["openssl version", "openssl x509 -in certs/api.pem -noout -enddate",
          "openssl x509 -in certs/api.pem -noout -checkend 1209600"],
         r"^Certificate will expire", None, "tail",
         "certs/api.pem expires within 14 days", image="debian:12",
         prepare=["openssl req -x509 -newkey rsa:2048 -nodes -keyout certs/api.key -out certs/api.pem -days 3"
                  " -subj /CN=api.example.com 2>/dev/null"]),
]
