"""Runtime failures and package managers: Java exceptions and JUL logs, missing modules at run time
(perl, ruby, php, lua), pip building a package, pnpm and yarn installs, apt, a parallel make."""

from __future__ import annotations

from case import Case

JAVA = "eclipse-temurin:17-jdk"
NODE = "node:20-bookworm"
NPM = {"npm_config_cache": "/tmp/corpus28/npmcache", "npm_config_update_notifier": "false"}
JAVAC = "javac -d out $(find src -name '*.java')"

CASES: list[Case] = [
    Case("java", "caused_by", "jv_app", "gitlab",
         ["java -version", JAVAC, "java -cp out com.acme.app.Main config conf/app-ci.properties"],
         r"^Exception in thread \"main\"", r"^\s+\.\.\. \d+ more", "traceback",
         "IllegalStateException: cannot read conf/app-ci.properties, caused by NoSuchFileException",
         image=JAVA, fix={"conf/app-ci.properties": [("", "server.port = 9091\n")]}),
    Case("java", "jul_severe", "jv_app", "jenkins",
         [JAVAC, "java -cp out com.acme.app.Main env"],
         r"^SEVERE: ", None, "log-level",
         "SEVERE: invalid server.port in environment: For input string \"80 80\"", image=JAVA, extra=0),
    Case("pip", "editable_build_error", "py_pkg", "gitlab",
         ["python --version", "pip install -e ."],
         r"^\s+Traceback \(most recent call last\)", r"ModuleNotFoundError: No module named 'pkgx'", "traceback",
         "setup.py imports pkgx before it is installed: getting requirements to build editable failed",
         fix={"setup.py": [("from pkgx.version import VERSION\n\nsetup(version=VERSION)", "setup()")]}),
    Case("perl", "cant_locate_module", "pl_report", "gitlab",
         ["perl -v | head -2", "perl report.pl"],
         r"^Can't locate JSON/XS.pm", r"^BEGIN failed", "traceback",
         "JSON::XS is not installed in the image", image="perl:5.36"),
    Case("ruby", "load_error", "rb_report", "gitlab",
         ["ruby --version", "ruby report.rb report.xml"],
         r"cannot load such file -- nokogiri \(LoadError\)", r"from report.rb:\d+", "traceback",
         "nokogiri gem missing (no Gemfile / bundle install)", image="ruby:3.1"),
    Case("php", "class_not_found", "php_app", "gitlab",
         ["php --version", "php app.php"],
         r"PHP Fatal error:  Uncaught Error", r"^\s+thrown in", "traceback",
         "Class App\\Mailer not found: src/Mailer.php was never added", image="php:8.2-cli",
         fix={"app.php": [("require __DIR__ . '/src/Config.php';",
                           "require __DIR__ . '/src/Config.php';\nrequire __DIR__ . '/src/Mailer.php';")],
              "src/Mailer.php": [("", "<?php\n\ndeclare(strict_types=1);\n\nnamespace App;\n\nfinal class Mailer\n{\n"
                                      "    public function __construct(private Config $config)\n    {\n    }\n\n"
                                      "    public function send(string $to, string $text): void\n    {\n"
                                      "        echo \"mail to $to: $text\" . PHP_EOL;\n    }\n}\n")]}),
    Case("lua", "index_nil", "lua_app", "gitlab",
         ["lua -v", "lua main.lua"],
         r"^lua: main.lua:\d+: attempt to index", r"^\s+\[C\]: in \?", "traceback",
         "config has no 'database' table (only cache): indexing nil in connect()", image="nickblah/lua:5.4"),
    Case("pnpm", "fetch_404", "js_pnpm", "gitlab",
         ["node --version", "npx --yes pnpm@9.15.0 --version", "npx --yes pnpm@9.15.0 install"],
         r"ERR_PNPM_FETCH_404", r"is not in the npm registry|No authorization header|404 Not Found", "npm",
         "@acme-internal/ui-kit is not on the public registry (private scope without .npmrc)",
         image=NODE, env=NPM),
    Case("yarn", "no_matching_version", "js_yarn", "github",
         ["npx --yes yarn@1.22.22 --version", "npx --yes yarn@1.22.22 install --non-interactive"],
         r"^error ", None, "npm",
         "is-number@^99.0.0: no such version on the registry", image=NODE, env=NPM),
    Case("apt", "unable_to_locate", "sh_deploy", "gitlab",
         ["cat /etc/debian_version", "apt-get install -y --no-install-recommends libacme-sdk-dev"],
         r"^E: Unable to locate package", None, "apt",
         "libacme-sdk-dev is not in the Debian archive (vendor repository not added)", image="debian:bookworm"),
    Case("gcc", "parallel_make", "c_sync", "gitlab",
         ["make -j2 -k"],
         r"src/main.c:\d+:\d+: error: ", r"^\s+\|\s+\^", "compiler",
         "main.c: 'items' undeclared (the array is called 'entries'); make -j2 -k shows warnings around it",
         image="gcc:12", extra=0, hidden=["sed -i 's/int n = sync_entries(entries, 3);/int n = sync_entries(items, 3);/' "
                                          "src/main.c"]),
    Case("gnu-make", "recipe_tool_missing", "c_sync", "gitlab",
         ["make", "make docs"],
         r"sphinx-build: No such file or directory|sphinx-build: not found", None, "make",
         "the docs target needs sphinx-build, which is not in the gcc image", image="gcc:12"),
    Case("curl", "could_not_resolve_host", "sh_fetch", "gitlab",
         ["./fetch-sdk.sh"],
         r"curl: \(6\) Could not resolve host", None, "shell",
         "DNS: the artifact host artifacts.acme.example cannot be resolved (network failure)",
         image="curlimages/curl:8.11.0"),
    Case("pip", "index_unreachable", "sh_fetch", "gitlab",
         ["pip --version", "pip install --retries 1 --timeout 5 --index-url https://pypi.acme.example/simple "
          "-r requirements.txt"],
         r"^WARNING: Retrying", r"^ERROR: No matching distribution found", "resolver",
         "the private index pypi.acme.example cannot be resolved (Name or service not known); pip then finds "
         "no acme-sdk"),
    Case("npm", "enotfound_registry", "sh_fetch", "gitlab",
         ["node --version", "npm install --registry https://npm.acme.example/ --fetch-retries=1 "
          "--fetch-retry-mintimeout=1000 --fetch-retry-maxtimeout=2000"],
         r"npm error code ENOTFOUND", r"npm error network request to .* failed", "npm",
         "DNS: getaddrinfo ENOTFOUND npm.acme.example (registry host unreachable)", image=NODE, env=NPM),
    Case("shell", "segfault", "c_sync", "gitlab",
         ["make", "./syncd"],
         r"Segmentation fault", None, "crash",
         "syncd dereferences a NULL entry pointer and crashes (SIGSEGV, exit 139)", image="gcc:12",
         hidden=["sed -i 's/    int n = sync_entries(entries, 3);/    entry_t *none = NULL;\\n    int n = "
                 "sync_entries(none, 3);/' src/main.c"]),
]
