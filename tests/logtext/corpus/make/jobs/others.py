"""Shell, git, terraform, shellcheck, perl, ruby, elixir, erlang, lua, php."""

from __future__ import annotations

from case import Case

SH = "debian:bookworm-slim"
TF = "hashicorp/terraform:1.11"
RUBY = "ruby:3.1"
ELIXIR = "elixir:1.14"
ERLANG = "erlang:25"
LUA = "nickblah/lua:5.4-luarocks"
PHP = "php:8.2-cli"
PERL = "perl:5.36"
ERL_FIX = {"test/bqueue_tests.erl": [("?assertEqual(b, First)", "?assertEqual(a, First)"),
                                     ("?assertEqual(2, bqueue:size(Q))", "?assertEqual(1, bqueue:size(Q))")]}
PL_FIX = {"lib/Text/Wrap2.pm": [("map { ucfirst } split / /, $text", "map { join '-', map { ucfirst } split /-/ } "
                                 "split / /, $text")]}
GIT_REPO = ["git init -q -b main && git -c user.email=ci@acme.example -c user.name=ci add -A "
            "&& git -c user.email=ci@acme.example -c user.name=ci commit -qm 'release 1.4.2'"]
TF_UNDECLARED = ("sed -i 's/  name   = local.name/  name   = \"${local.name}-${var.region}\"/' main.tf")

CASES: list[Case] = [
    # --- shell ------------------------------------------------------------------------------------
    Case("bash", "command_not_found", "sh_deploy", "gitlab",
         ["./scripts/build.sh", "./scripts/deploy.sh"],
         r"helm: command not found", None, "shell",
         "deploy.sh calls helm, which is not in the job image", image=SH),
    Case("bash", "no_such_file", "sh_deploy", "github",
         ["./scripts/build.sh", "./scripts/migrate.sh"],
         r"No such file or directory", None, "shell",
         "migrate.sh reads db/seeds/initial.sql, which is not in the repository", image=SH,
         fix={"db/seeds/initial.sql": [("", "INSERT INTO t VALUES (1);\n")]}),
    Case("bash", "permission_denied", "sh_deploy", "travis",
         ["./scripts/build.sh", "./scripts/publish.sh"],
         r"Permission denied", None, "shell", "scripts/publish.sh is not executable (mode 644)", image=SH),
    Case("bash", "unbound_variable", "sh_deploy", "jenkins",
         ["./scripts/check-env.sh"],
         r"unbound variable", None, "shell", "RELEASE_TARGET is not set (set -u)", image=SH,
         env={"USER": "jenkins"}),
    Case("bash", "set_e_silent_grep", "sh_deploy", "gitlab",
         ["./scripts/build.sh", "./scripts/release-notes.sh"],
         r"checking CHANGELOG.md", None, "shell",
         "set -e: grep finds no '## 1.4.2' section in CHANGELOG.md and the script stops without a message",
         image=SH, fix={"CHANGELOG.md": [("## 1.4.1", "## 1.4.2\n- feat: staged rollout\n\n## 1.4.1")]}),
    Case("shellcheck", "sc2045", "sh_deploy", "gitlab",
         ["shellcheck --version", "shellcheck scripts/cleanup.sh scripts/build.sh"],
         r"^In scripts/cleanup.sh line 4:", r"SC2045", "lint",
         "shellcheck: iterating over ls output (SC2045 error) in cleanup.sh, plus quoting warnings",
         image="koalaman/shellcheck-alpine:v0.9.0", extra=1),
    Case("shellcheck", "gcc_format", "sh_deploy", "gitlab",
         ["shellcheck -f gcc scripts/*.sh"],
         r"^scripts/cleanup.sh:4:\d+: error", None, "lint",
         "shellcheck -f gcc: first error SC2045 in scripts/cleanup.sh", image="koalaman/shellcheck-alpine:v0.9.0"),
    # --- git ----------------------------------------------------------------------------------------
    Case("git", "pathspec_no_match", "sh_deploy", "gitlab",
         ["git --version", "git fetch --all --quiet", "git checkout release/2.0"],
         r"pathspec 'release/2.0' did not match", None, "git",
         "branch release/2.0 does not exist", image=SH, prepare=GIT_REPO),
    Case("git", "could_not_resolve_host", "sh_deploy", "github",
         ["git clone --depth 1 https://git.acme.example/acme/shared-config.git config"],
         r"^fatal: unable to access", None, "git",
         "DNS: Could not resolve host git.acme.example (network failure fetching a dependency)", image=SH),
    Case("git", "merge_conflict", "sh_deploy", "travis",
         ["git checkout -q -b feature && echo 1.5.0-rc1 > VERSION && git -c user.email=ci@acme.example "
          "-c user.name=ci commit -qam 'bump rc' && git checkout -q main",
          "echo 1.4.3 > VERSION && git -c user.email=ci@acme.example -c user.name=ci commit -qam 'hotfix 1.4.3'",
          "git -c user.email=ci@acme.example -c user.name=ci merge feature"],
         r"^CONFLICT \(content\)", r"^Automatic merge failed", "git",
         "merge conflict in VERSION between hotfix 1.4.3 and feature 1.5.0-rc1", image=SH, prepare=GIT_REPO),
    # --- terraform ------------------------------------------------------------------------------------
    Case("terraform", "undeclared_variable", "tf_network", "gitlab",
         ["terraform version", "terraform init -backend=false -input=false", "terraform validate"],
         r"Error: Reference to undeclared input variable", r"^╵", "terraform",
         "main.tf uses var.region, which is not declared", image=TF, hidden=[TF_UNDECLARED]),
    Case("terraform", "unclosed_block", "tf_network", "gitlab",
         ["terraform init -backend=false -input=false -no-color"],
         r"Error: Unclosed configuration block", r"be caused by incorrect brace nesting", "terraform",
         "main.tf: a missing '}' leaves the locals block unclosed", image=TF,
         hidden=["python3 -c \"p='main.tf'; s=open(p).read(); open(p,'w').write(s.replace("
                 "'range(3) : cidrsubnet(var.cidr_block, 8, i)]\\n}', 'range(3) : cidrsubnet(var.cidr_block, 8, i)]\\n', 1))\""]),
    Case("terraform", "missing_module_dir", "tf_network", "travis",
         ["terraform init -backend=false -input=false -no-color"],
         r"Error: Unreadable module directory", r"no such file or", "terraform",
         "module source ./modules/vpc does not exist (renamed to ./modules/subnet)", image=TF, extra=1,
         hidden=["sed -i 's#./modules/subnet#./modules/vpc#' main.tf"]),
    Case("terraform", "variable_validation", "tf_network", "jenkins",
         ["terraform init -backend=false -input=false -no-color",
          "terraform plan -input=false -no-color -var environment=production-eu"],
         r"Error: Invalid value for variable", r"This was checked by the validation rule", "terraform",
         "environment 'production-eu' fails the variable's validation (staging|prod only)", image=TF,
         hidden=["python3 -c \"p='main.tf'; s=open(p).read(); open(p,'w').write(s.replace("
                 "'  default = \\\"staging\\\"\\n', '  default = \\\"staging\\\"\\n  validation {\\n    condition     = "
                 "contains([\\\"staging\\\", \\\"prod\\\"], var.environment)\\n    error_message = \\\"environment must be "
                 "staging or prod.\\\"\\n  }\\n', 1))\""]),
    # --- perl ----------------------------------------------------------------------------------------
    Case("prove", "title_case_hyphen", "pl_text", "gitlab",
         ["perl -v | head -2", "prove -lv t"],
         r"#\s+Failed test 'title case capitalises after hyphens'", r"#\s+expected:", "tap",
         "title_case does not capitalise after a hyphen: 'End-of-line' vs 'End-Of-Line'", image=PERL,
         fix=PL_FIX),
    Case("prove", "module_syntax_error", "pl_text", "gitlab",
         ["prove -l t"],
         r"#\s+Failed test 'use Text::Wrap2;'", r"syntax error at lib/Text/Wrap2.pm", "tap",
         "lib/Text/Wrap2.pm has a syntax error (missing semicolon): both test files fail to load", image=PERL,
         fix=PL_FIX, extra=1,
         hidden=["sed -i 's/    my @lines;/    my @lines/' lib/Text/Wrap2.pm"]),
    # --- ruby ---------------------------------------------------------------------------------------
    Case("rspec", "split_loses_cent", "rb_money", "gitlab",
         ["ruby --version", "rspec --version", "rspec --format progress"],
         r"^\s+1\) Money#split keeps every cent", r"# \./spec/money_spec.rb:\d+", "rspec",
         "Money#split drops the remainder: 999 != 1000 (2 failures)", image=RUBY,
         fix={"lib/money.rb": [("    base = cents / parts\n    Array.new(parts) { Money.new(base, currency) }",
                                "    base, rest = cents.divmod(parts)\n    Array.new(parts) { |i| Money.new(base + "
                                "(i < rest ? 1 : 0), currency) }"),
                               ("cents / 100, currency", "cents / 100.0, currency")]}),
    Case("rspec", "documentation_format", "rb_money", "jenkins",
         ["rspec --format documentation spec/money_spec.rb:24 spec/money_spec.rb:8"],
         r"^\s+1\) Money#to_s shows cents", r"# \./spec/money_spec.rb:\d+", "rspec",
         "Money#to_s uses integer division: '19.00 EUR' instead of '19.99 EUR'", image=RUBY),
    Case("minitest", "rake_test", "rb_money", "gitlab",
         ["ruby --version", "rake test TESTOPTS=--seed=4242"],
         r"^\s+1\) (Failure|Error):", r"^$", "minitest",
         "first of 3 minitest problems (seed 4242); to_s, split and a currency mismatch", image=RUBY, extra=-1),
    Case("rubocop", "format_token", "rb_money", "gitlab",
         ["rubocop --version", "rubocop lib spec test"],
         r"^lib/money.rb:\d+:\d+: [CWEF]:", r"^\s*\^+$", "lint",
         "rubocop: Style/FormatStringToken offenses in lib/money.rb", image=RUBY),
    # --- elixir / erlang ------------------------------------------------------------------------------
    Case("exunit", "unknown_sku", "ex_inventory", "gitlab",
         ["elixir --version", "mix test"],
         r"^\s+1\) test ", r"^\s+test/inventory_test.exs:\d+: \(test\)", "exunit",
         "remove of an unknown SKU returns {:error, {:unknown, sku}}, test expects :unknown_sku (2 failures)",
         image=ELIXIR, fix={"test/inventory_test.exs": [("{:error, :unknown_sku}", "{:error, {:unknown, \"kiwi\"}}")],
                            "lib/inventory.ex": [("  def add(stock, sku, qty) when qty > 0", "  def add(stock, _sku, 0), do: stock\n\n"
                                                 "  def add(stock, sku, qty) when qty > 0")]}),
    Case("exunit", "compile_error", "ex_inventory", "gitlab",
         ["mix compile --warnings-as-errors"],
         r"undefined function", r"lib/inventory.ex:\d+", "compiler",
         "lib/inventory.ex calls an undefined function sum_values/1", image=ELIXIR, extra=0,
         hidden=["sed -i 's/stock |> Map.values() |> Enum.sum()/stock |> sum_values()/' lib/inventory.ex"]),
    Case("erlc", "proper_header_missing", "erl_queue", "gitlab",
         ["erl -noshell -eval 'io:format(\"OTP ~s~n\", [erlang:system_info(otp_release)]), halt().'", "make test"],
         r"can't find include lib", r"^%\s+\|", "compiler",
         "proper.hrl not found: the test includes PropEr, which is not a dependency of the build",
         image=ERLANG, fix=ERL_FIX, hidden=["sed -i 's#^-include_lib(\"eunit/include/eunit.hrl\").#&\\n-include_lib(\"proper/include/proper.hrl\").#' "
                               "test/bqueue_tests.erl"]),
    Case("eunit", "fifo_order", "erl_queue", "travis",
         ["make test"],
         r"fifo_test\.\.\.\*failed\*", r"\{value,", "eunit",
         "bqueue: fifo_test pops a, test expects b (the test is wrong); size_test expects 2 for one item",
         image=ERLANG, fix=ERL_FIX),
    # --- lua / php ---------------------------------------------------------------------------------
    Case("busted", "empty_fields", "lua_csv", "gitlab",
         ["busted --version", "busted -o utfTerminal spec"],
         r"^Failure → spec/csv_spec.lua", r"^$", "busted",
         "csv.split drops empty fields ({a, c} instead of {a, '', c}); header() errors on empty input", image=LUA,
         extra=-1, fix={"spec/csv_spec.lua": [('assert.are.same({ "a", "", "c" }, csv.split("a,,c"))',
                                               'assert.are.same({ "a", "c" }, csv.split("a,,c"))'),
                                              ('local index = csv.header(csv.parse(""))',
                                               'local index = csv.header(csv.parse("name,age"))')]}),
    Case("busted", "tap_output", "lua_csv", "gitlab",
         ["busted -o TAP spec"],
         r"^not ok 2 - csv keeps empty fields", r"^# Expected:|^#\s+\[3\]|Expected objects", "tap",
         "busted TAP: 'keeps empty fields' fails first", image=LUA),
    Case("phpunit", "undefined_array_key", "php_cart", "gitlab",
         ["php --version", "phpunit --version", "phpunit"],
         r"^There was 1 error:", r"tests/CartTest.php:\d+$", "phpunit",
         "testTotal: Undefined array key \"kiwi\" in Cart::total (and count() counts SKUs, not units)",
         image=PHP, fix={"src/Cart.php": [("return count($this->items);", "return array_sum($this->items);"),
                                          ("$prices[$sku] * $qty", "($prices[$sku] ?? 0.0) * $qty")],
                         "tests/CartTest.php": [("$cart->add('kiwi');", "$cart->add('pear');"),
                                                ("assertEqualsWithDelta(2.5", "assertEqualsWithDelta(2.5")]}),
    Case("php", "lint_syntax_error", "php_cart", "gitlab",
         ["php -l tests/CartTest.php", "php -l src/Cart.php"],
         r"PHP Parse error|^Parse error", None, "compiler",
         "src/Cart.php: syntax error, unexpected token (missing semicolon)", image=PHP,
         hidden=["sed -i 's/        $total = 0.0;/        $total = 0.0/' src/Cart.php"]),
    Case("terraform", "validate_json", "tf_network", "plain",
         ["terraform init -backend=false -input=false -no-color > /dev/null", "terraform validate -json -no-color"],
         r'"severity": "error"', r'"detail": ', "terraform",
         "terraform validate -json: reference to undeclared input variable var.region", image=TF,
         hidden=[TF_UNDECLARED]),
]
