"""Held-out batch EIGHTH: ecosystems the rest of the corpus lacks, each run with its real tool here
(Debian 12 packages, or PyPI for zig and meson): GHC and cabal, OCaml and dune, Nim, R and
``R CMD check``, gfortran, C# (mono's mcs, NUnit 2.6), Kotlin, Clojure, Scala, Crystal, Zig,
kubectl and meson. NINTH: Gradle 4.4 (offline) and GoogleTest, and more of the same ecosystems
in other framings. TENTH: runtime errors (Crystal, Clojure, GHC, OCaml), kotlinc -Werror, an NUnit
error, cabal's resolver. ELEVENTH: R CMD check's missing package, a meson compile error, dune's
missing library, a zig panic, a Nim template's raise, a GoogleTest crash, GHC's minimum of []. TWELFTH: a Scala MatchError
(Jenkins freestyle), a Crystal return type, a Kotlin missing import, R's missing package, a Fortran
link error, a C# missing namespace. Each batch was scored before the finder was changed for it (see the
corpus README).
"""

from __future__ import annotations

from case import Case

HS = "haskell:9.0"
ML = "ocaml/opam:debian-12-ocaml-4.13"
NIM = "nimlang/nim:1.6.10"
R = "r-base:4.2.2"
MONO = "mono:6.12"
KT = "zenika/kotlin:1.3-jdk17"
CLJ = "clojure:temurin-17"
JDK = "eclipse-temurin:17"
CR = "crystallang/crystal:1.6.0"
PY = "python:3.11-slim"
K8S = "bitnami/kubectl:1.32"

CLJ_RUN = "java -cp /usr/share/java/clojure.jar:/usr/share/java/spec.alpha.jar:" \
          "/usr/share/java/core.specs.alpha.jar:src:test clojure.main"
MCS = "mcs -out:bank.exe Account.cs Program.cs"
NUNIT = "mcs -target:library -r:/usr/lib/cli/nunit.framework-2.6.3/nunit.framework.dll -out:tests.dll " \
        "Account.cs AccountTests.cs"
KOTLINC = "kotlinc Orders.kt -include-runtime -d orders.jar"
ZIG = "python -m ziglang"
# Hackage is not reachable here: cabal gets a config whose only repository is an empty local one
# (the packages are GHC's own), as an offline CI image would have.
CABAL = {"CABAL_DIR": "/tmp/corpus28/cabal"}
CABAL_PREP = ["mkdir -p /tmp/corpus28/cabal/empty && printf 'repository local-none\\n  url: "
              "file+noindex:///tmp/corpus28/cabal/empty\\n' > /tmp/corpus28/cabal/config"]

CASES: list[Case] = [
    # --- Haskell -------------------------------------------------------------------------------
    Case("ghc", "type_error", "hs_shapes", "gitlab",
         ["ghc --version", "cabal --version", "cabal build"],
         r"src/Report.hs:\d+:\d+: error:", r"^\s+\|\s+\^", "compiler",
         "Report.summary concatenates an Int (length shapes) to a String", image=HS, env=CABAL,
         prepare=CABAL_PREP,
         hidden=["sed -i 's/show (length shapes)/length shapes/' src/Report.hs"]),
    Case("ghc", "werror_incomplete", "hs_shapes", "github",
         ["ghc -Wall -Werror -isrc -outputdir /tmp/hsout src/Shapes.hs"],
         r"src/Shapes.hs:\d+:\d+: error:", r"^\s+\|\s+\^", "compiler",
         "-Werror: area has no equation for Square (incomplete patterns)", image=HS,
         hidden=["sed -i '/^area (Square s)/d' src/Shapes.hs"]),
    Case("ghc", "missing_module", "hs_shapes", "travis",
         ["ghc --numeric-version", "mkdir -p /tmp/hsapp && ghc -outputdir /tmp/hsapp -o /tmp/hsapp/app app.hs"],
         r"app.hs:\d+:\d+: error:", r"^\s+\|\s+\^", "compiler",
         "Data.Aeson is imported but the aeson package is not installed", image=HS,
         hidden=["sed -i '1i import Data.Aeson (encode)' app.hs"]),
    Case("cabal", "test_suite_fail", "hs_shapes", "jenkins",
         ["cabal build", "cabal test --test-show-details=direct"],
         r"^FAIL total area", None, "test",
         "area of a Square is s*2 instead of s*s: total area of two squares is 6, not 5", image=HS,
         env=CABAL, prepare=CABAL_PREP,
         hidden=["sed -i 's/^area (Square s) = s \\* s/area (Square s) = s * 2/' src/Shapes.hs"]),
    Case("ghc", "runghc_map_key", "hs_shapes", "gitlab",
         ["runghc app.hs"],
         r"Map\.!: given key is not an element", r"called at", "traceback",
         "the basket holds 'plum', which has no price (Map.! on a missing key)", image=HS),
    # --- OCaml ---------------------------------------------------------------------------------
    Case("dune", "type_error", "ml_ledger", "gitlab",
         ["ocaml -version", "dune build"],
         r'^File "bin/main.ml", line \d+', r"^Error: ", "compiler",
         "main.ml passes an int balance where format_cents' string result is expected", image=ML,
         hidden=["sed -i 's/(Ledger.format_cents (Ledger.balance entries \"bank\"))/(Ledger.balance entries "
                 "\"bank\")/' bin/main.ml"]),
    Case("dune", "test_fail", "ml_ledger", "github",
         ["dune build @install", "dune test"],
         r"^FAIL format whole", None, "test",
         "format_cents pads cents with a space (%2d): 400. 0 instead of 400.00", image=ML,
         hidden=["sed -i 's/%d.%02d/%d.%2d/' src/ledger.ml"]),
    Case("ocaml", "uncaught_exception", "ml_ledger", "travis",
         ["dune build @install", "dune exec bin/main.exe"],
         r"^Fatal error: exception", None, "traceback",
         "the bank line holds '400.00': int_of_string fails", image=ML,
         hidden=["sed -i 's/bank, 40000/bank, 400.00/' bin/main.ml"]),
    Case("ocaml", "unbound_value", "ml_ledger", "jenkins",
         ["ocamlfind list 2>/dev/null | head -1 || true", "ocamlc -c src/ledger.ml -o /tmp/ledger.cmo"],
         r'^File "src/ledger.ml", line \d+', r"^Error: Unbound value", "compiler",
         "String.split_on_chars does not exist (split_on_char)", image=ML,
         hidden=["sed -i 's/String.split_on_char /String.split_on_chars /' src/ledger.ml"]),
    Case("dune", "assert_failure", "ml_ledger", "plain",
         ["dune test"],
         r"^Fatal error: exception Assert_failure", None, "test",
         "the test's entries now hold a bank line, so balance bank is not 0", image=ML,
         hidden=["sed -i 's/\\[ \"cash, 1250\"; \"cash, -300\" \\]/[ \"cash, 1250\"; \"cash, -300\"; "
                 "\"bank, 5\" ]/' test/test_ledger.ml"]),
    # --- Nim -----------------------------------------------------------------------------------
    Case("nim", "undeclared_identifier", "nim_inv", "gitlab",
         ["nim --version | head -1", "nim c --hints:off inventory.nim"],
         r"inventory.nim\(\d+, \d+\) Error: undeclared identifier", None, "compiler",
         "parseInteger does not exist (parseInt)", image=NIM,
         hidden=["sed -i 's/parseInt(parts/parseInteger(parts/' inventory.nim"]),
    Case("nim", "unittest_fail", "nim_inv", "github",
         ["nim c -r --hints:off test_inventory.nim"],
         r"Check failed: t\[\"A-1\"\] == 5", r"\[FAILED\] totals add up per sku", "test",
         "totals counts lines instead of adding quantities (+= 1)", image=NIM,
         hidden=["sed -i 's/+= it.qty/+= 1/' inventory.nim"]),
    Case("nim", "unhandled_exception", "nim_inv", "jenkins",
         ["nim c -r --hints:off load.nim"],
         r"load.nim\(\d+\)\s+load$", r"Error: unhandled exception", "traceback",
         "the quantity 'five' is not an integer: parseInt raises ValueError", image=NIM),
    # --- R -------------------------------------------------------------------------------------
    Case("r", "rscript_error", "r_stats", "gitlab",
         ["R --version | head -1", "Rscript report.R"],
         r"^Error in ", r"^Execution halted", "traceback",
         "sales.csv's column is 'amt' now: aggregate cannot find 'amount'", image=R,
         hidden=["sed -i 's/^region,amount/region,amt/' sales.csv"]),
    Case("r-cmd-check", "example_fails", "r_stats", "github",
         ["R CMD build --no-build-vignettes .", "R CMD check --no-manual rstats_0.1.0.tar.gz"],
         r"checking examples \.\.\. ERROR", r"^Execution halted", "check",
         "the example of spread() calls it with one value, which stops", image=R,
         hidden=["sed -i 's/^spread(c(3, 9, 4))/spread(3)/' man/spread.Rd"]),
    Case("r-cmd-check", "tests_fail", "r_stats", "travis",
         ["R CMD build --no-build-vignettes .", "R CMD check --no-manual rstats_0.1.0.tar.gz"],
         r"checking tests \.\.\.", r"Execution halted", "check",
         "trimmed_mean keeps one value too many at the low end: the stopifnot in tests fails", image=R,
         hidden=["sed -i 's/mean(x\\[(k + 1):(n - k)\\])/mean(x[k:(n - k)])/' R/stats.R"]),
    # --- Fortran -------------------------------------------------------------------------------
    Case("gfortran", "syntax_error", "f90_grid", "gitlab",
         ["gfortran --version | head -1", "make"],
         r"^grid.f90:\d+:\d+:$", r"^Error: ", "compiler",
         "grid.f90: unclosed parenthesis in prev = a(1", image="gcc:12",
         hidden=["sed -i 's/    prev = a(1)/    prev = a(1/' grid.f90"]),
    Case("gfortran", "bounds_check", "f90_grid", "github",
         ["make", "make run"],
         r"^At line \d+ of file grid.f90", r"Fortran runtime error", "crash",
         "smooth loops to n and reads a(n + 1): out of bounds under -fcheck=bounds", image="gcc:12",
         hidden=["sed -i 's/do i = 2, n - 1/do i = 2, n/' grid.f90"]),
    # --- C# (mono) -----------------------------------------------------------------------------
    Case("mcs", "missing_member", "cs_bank", "gitlab",
         ["mono --version | head -1", MCS],
         r"error CS\d+", None, "compiler",
         "List<decimal> has no 'add' (Add)", image=MONO,
         hidden=["sed -i 's/_moves.Add(-amount)/_moves.add(-amount)/' Account.cs"]),
    Case("mono", "unhandled_exception", "cs_bank", "travis",
         [MCS, "mono bank.exe bob"],
         r"^Unhandled Exception:", r"^\s+at Acme.Bank.Program.Main", "traceback",
         "there is no account 'bob': KeyNotFoundException", image=MONO),
    Case("nunit", "test_failure", "cs_bank", "jenkins",
         [NUNIT, "nunit-console -nologo tests.dll"],
         r"^1\) Test Failure : ", r"^\s*at Acme.Bank.Tests", "junit",
         "Withdraw adds the amount instead of subtracting it: 110 not 50", image=MONO,
         hidden=["sed -i 's/_moves.Add(-amount)/_moves.Add(amount)/' Account.cs"]),
    # --- Kotlin --------------------------------------------------------------------------------
    Case("kotlinc", "unresolved_reference", "kt_orders", "gitlab",
         ["kotlinc -version", KOTLINC],
         r"^Orders.kt:\d+:\d+: error: unresolved reference", r"^\s+\^", "compiler",
         "unitCent is not a property of Line (unitCents)", image=KT, timeout=900,
         hidden=["sed -i 's/acc + l.qty \\* l.unitCents/acc + l.qty * l.unitCent/' Orders.kt"]),
    Case("kotlinc", "type_mismatch", "kt_orders", "travis",
         [KOTLINC],
         r"^Orders.kt:\d+:\d+: error: type mismatch", r"^\s+\^", "compiler",
         "Line's qty gets the String, not toInt()", image=KT, timeout=900,
         hidden=["sed -i 's/Line(sku.trim(), qty.trim().toInt(), /Line(sku.trim(), qty.trim(), /' Orders.kt"]),
    Case("kotlin", "number_format", "kt_orders", "github",
         [KOTLINC, "java -jar orders.jar 'B-9; X1, two, 450'"],
         r"^Exception in thread \"main\"", r"^\s+at OrdersKt.main", "traceback",
         "the order's quantity 'two' is not a number (NumberFormatException)", image=KT, timeout=900),
    # --- Clojure -------------------------------------------------------------------------------
    Case("clojure", "test_fail", "clj_cart", "gitlab",
         ["java -version 2>&1 | head -1", f"{CLJ_RUN} test/cart/core_test.clj"],
         r"^FAIL in \(discounts\)", r"^\s+actual:", "test",
         "apply-discount divides by 10, not 100: 0 instead of 900", image=CLJ,
         hidden=["sed -i 's/(quot (\\* total pct) 100)/(quot (* total pct) 10)/' src/cart/core.clj"]),
    Case("clojure", "syntax_error", "clj_cart", "github",
         [f"{CLJ_RUN} test/cart/core_test.clj"],
         r"^Syntax error compiling", r"Unable to resolve symbol", "compiler",
         "cart-total maps line-totl, which does not exist", image=CLJ,
         hidden=["sed -i 's/(map line-total lines)/(map line-totl lines)/' src/cart/core.clj"]),
    # --- Scala ---------------------------------------------------------------------------------
    Case("scalac", "type_mismatch", "scala_calc", "gitlab",
         ["scalac -version", "mkdir -p /tmp/scalaout && scalac -d /tmp/scalaout Calc.scala"],
         r"^Calc.scala:\d+: error: type mismatch", r"^\s+\^", "compiler",
         "eval returns v.toString for a Num, a String where a Double is required", image=JDK,
         hidden=["sed -i 's/case Num(v)    => v$/case Num(v)    => v.toString/' Calc.scala"]),
    Case("scala", "arithmetic_exception", "scala_calc", "jenkins",
         ["mkdir -p /tmp/scalaout && scalac -d /tmp/scalaout Calc.scala", "scala -cp /tmp/scalaout Calc"],
         r"ArithmeticException: division by zero", r"^\s+at Calc\$\.main", "traceback",
         "Div(Num(1), Num(0)) throws: division by zero", image=JDK,
         hidden=["sed -i 's/Div(Num(1), Num(4))/Div(Num(1), Num(0))/' Calc.scala"]),
    # --- Crystal -------------------------------------------------------------------------------
    Case("crystal", "spec_failure", "cr_slug", "gitlab",
         ["crystal --version | head -1", "crystal spec"],
         r"^\s+1\) Slug numbers a taken slug", r"# spec/slug_spec.cr:\d+", "rspec",
         "unique starts numbering at 1: hello-world-1 instead of hello-world-2", image=CR,
         hidden=["sed -i 's/    n = 2/    n = 1/' src/slug.cr"]),
    Case("crystal", "undefined_method", "cr_slug", "jenkins",
         ["crystal spec"],
         r"^In src/slug.cr:\d+:\d+", r"^Error: undefined method", "compiler",
         "String has no method downcas (downcase)", image=CR,
         hidden=["sed -i 's/title.downcase/title.downcas/' src/slug.cr"]),
    # --- Zig -----------------------------------------------------------------------------------
    Case("zig", "test_fail", "zig_ring", "github",
         [f"{ZIG} version", f"{ZIG} test ring.zig"],
         r"oldest value is dropped when full\.\.\.", r"ring.zig:\d+:\d+: 0x\w+ in test", "test",
         "push treats a ring of 3 as full at 2: sum 13, expected 15", image=PY,
         hidden=["sed -i 's/if (self.len < N) {/if (self.len < N - 1) {/' ring.zig"]),
    Case("zig", "compile_error", "zig_ring", "gitlab",
         [f"{ZIG} version", f"{ZIG} test ring.zig"],
         r"^ring.zig:\d+:\d+: error:", r"^\s+\^", "compiler",
         "total is an i32 initialised with a string literal", image=PY,
         hidden=["sed -i 's/var total: i32 = 0;/var total: i32 = \"0\";/' ring.zig"]),
    # --- kubectl -------------------------------------------------------------------------------
    Case("kubectl", "yaml_error", "k8s_app", "gitlab",
         ["kubectl version --client", "kubectl kustomize . > manifests.yaml"],
         r'"command failed" err=', None, "k8s",
         "deployment.yaml: 'replicas' is indented under labels' level wrongly (YAML error)", image=K8S,
         hidden=["sed -i 's/^  replicas: 2/   replicas: 2/' deployment.yaml"]),
    Case("kubectl", "connection_refused", "k8s_app", "travis",
         ["kubectl version --client", "kubectl apply -f deployment.yaml -f service.yaml"],
         r'^error validating "deployment.yaml"', None, "k8s",
         "no kubeconfig in the job: kubectl asks localhost:8080 for its schema and is refused", image=K8S),
    # --- meson ---------------------------------------------------------------------------------
    Case("meson", "dependency_not_found", "meson_calc", "github",
         ["meson --version", "meson setup build"],
         r"^meson.build:\d+:\d+: ERROR: ", None, "build",
         "meson.build asks for libacme, which has no pkg-config file here", image=PY,
         hidden=["sed -i \"s/^calc_lib = /acme = dependency('libacme')\\ncalc_lib = /\" meson.build"]),
    Case("meson", "test_fail", "meson_calc", "jenkins",
         ["meson setup build", "meson compile -C build", "meson test -C build --print-errorlogs"],
         r"FAIL clamp high", None, "test",
         "calc_clamp returns lo for a value above hi", image=PY,
         hidden=["sed -i 's/if (v > hi) return hi;/if (v > hi) return lo;/' src/calc.c"]),
]

GRADLE = "gradle --offline --no-daemon --console=plain"
NINTH: list[Case] = [
    # --- Gradle 4.4 (Debian's, offline) ----------------------------------------------------------
    Case("gradle", "compile_error", "gr_invoice", "gitlab",
         ["gradle --version", f"{GRADLE} build"],
         r"Invoice.java:\d+: error: cannot find symbol", r"^\s+location:", "compiler",
         "Invoice.net adds 'cc', which is not declared (the loop variable is c)", image=JDK, timeout=900,
         hidden=["sed -i 's/total += c;/total += cc;/' src/main/java/com/acme/invoice/Invoice.java"]),
    Case("gradle", "test_failure", "gr_invoice", "github",
         [f"{GRADLE} test"],
         r"InvoiceTest > grossAddsTax FAILED", r"^\s+at com.acme.invoice.InvoiceTest", "junit",
         "gross divides the tax by 10, not 100: 3000 instead of 1200", image=JDK, timeout=900,
         hidden=["sed -i 's#net() \\* taxPercent / 100#net() * taxPercent / 10#' "
                 "src/main/java/com/acme/invoice/Invoice.java"]),
    Case("gradle", "offline_dependency", "gr_invoice", "travis",
         [f"{GRADLE} compileJava"],
         r"^\* What went wrong:", r"offline mode|No cached version", "gradle",
         "guava is declared but not in Gradle's cache, and the build runs offline", image=JDK, timeout=900,
         hidden=["sed -i \"s#^dependencies {#repositories { mavenCentral() }\\ndependencies {\\n    "
                 "compile 'com.google.guava:guava:32.1.2-jre'#\" build.gradle"]),
    Case("gradle", "script_error", "gr_invoice", "jenkins",
         [f"{GRADLE} build"],
         r"^\* What went wrong:", r"Could not find method", "gradle",
         "build.gradle calls testLoggin (a typo of testLogging)", image=JDK, timeout=900,
         hidden=["sed -i 's/    testLogging {/    testLoggin {/' build.gradle"]),
    # --- GoogleTest --------------------------------------------------------------------------------
    Case("gtest", "expect_eq", "gt_money", "gitlab",
         ["g++ --version | head -1", "make test"],
         r"money_test.cpp:\d+: Failure", r'^\s+"12.05"', "test",
         "format_cents does not pad 5 cents to 05: 12.5 instead of 12.05", image="gcc:12",
         hidden=["sed -i 's/if (frac.size() < 2) frac/if (frac.size() < 1) frac/' src/money.cpp"]),
    Case("gtest", "expect_throw", "gt_money", "github",
         ["make test"],
         r"money_test.cpp:\d+: Failure", r"Actual: it throws nothing", "test",
         "parse_cents accepts one decimal ('12.5'): the check was removed", image="gcc:12",
         hidden=["sed -i '/if (frac.size() != 2) throw/d' src/money.cpp"]),
    # --- more of the eighth batch's ecosystems, in other framings ----------------------------------
    Case("ghc", "not_in_scope", "hs_shapes", "jenkins",
         ["cabal build"],
         r"src/Shapes.hs:\d+:\d+: error:", r"^\s+\|\s+\^", "compiler",
         "perimeter uses 'side', which is not bound (the pattern binds s)", image=HS, env=CABAL,
         prepare=CABAL_PREP, hidden=["sed -i 's/^perimeter (Square s) = 4 \\* s/perimeter (Square s) = 4 * side/' "
                                     "src/Shapes.hs"]),
    Case("dune", "syntax_error", "ml_ledger", "github",
         ["dune build"],
         r'^File "src/ledger.ml", line \d+', r"^Error: ", "compiler",
         "ledger.ml: a 'let' without its 'in'", image=ML,
         hidden=["sed -i 's/  let parts = String.split_on_char/  let parts := String.split_on_char/' src/ledger.ml"
                 " && sed -i 's/  match String.split_on_char .,. line with/  let parts = String.split_on_char \\x27,\\x27"
                 " line\\n  match parts with/' src/ledger.ml"]),
    Case("mcs", "cannot_convert", "cs_bank", "github",
         ["mono --version | head -1", MCS],
         r"error CS\d+", None, "compiler",
         "Balance sums decimals into an int", image=MONO,
         hidden=["sed -i 's/                decimal total = 0;/                int total = 0;/' Account.cs"]),
]
CASES += NINTH

TENTH: list[Case] = [
    Case("crystal", "index_error", "cr_slug", "github",
         ["crystal --version | head -1", "crystal run src/main.cr"],
         r"^Unhandled exception: ", r"^\s+from ", "traceback",
         "main.cr prints the third slug of two titles (IndexError)", image=CR),
    Case("clojure", "execution_error", "clj_cart", "travis",
         [f"{CLJ_RUN} src/cart/main.clj"],
         r"^Execution error \(ArithmeticException\)", r"^Divide by zero", "traceback",
         "no line has a bulk quantity: dividing the total by zero items", image=CLJ),
    Case("kotlinc", "werror", "kt_orders", "jenkins",
         ["kotlinc -Werror Orders.kt -include-runtime -d orders.jar"],
         r"^Orders.kt:\d+:\d+: warning: ", r"^\s+\^", "compiler",
         "-Werror: the destructured 'price' is never used (a warning made fatal)", image=KT, timeout=900,
         hidden=["sed -i 's/Line(sku.trim(), qty.trim().toInt(), price.trim().toLong())/Line(sku.trim(), "
                 "qty.trim().toInt(), 0L)/' Orders.kt"]),
    Case("nunit", "test_error", "cs_bank", "gitlab",
         [NUNIT, "nunit-console -nologo tests.dll"],
         r"^1\) Test Error : ", r"^\s*at Acme.Bank", "junit",
         "Deposit refuses every amount: DepositAddsToBalance throws ArgumentOutOfRangeException", image=MONO,
         hidden=["sed -i 's/if (amount <= 0) throw/if (amount >= 0) throw/' Account.cs"]),
    Case("cabal", "unknown_package", "hs_shapes", "github",
         ["cabal --version", "cabal build"],
         r"Could not resolve dependencies", r"unknown package|fail \(backjumping", "resolver",
         "the library now needs 'containers-extra', which no repository here has", image=HS, env=CABAL,
         prepare=CABAL_PREP,
         hidden=["sed -i '0,/build-depends:    base >=4 \\&\\& <5/s//build-depends:    base >=4 \\&\\& <5, "
                 "containers-extra/' shapes.cabal"]),
    Case("ghc", "empty_list", "hs_shapes", "gitlab",
         ["runghc first.hs ''"],
         r"Prelude.head: empty list", None, "traceback",
         "first.hs takes head of the names, and every argument was empty", image=HS),
    Case("ocaml", "not_found_backtrace", "ml_ledger", "jenkins",
         ["ocamlfind ocamlopt -g -package str lookup.ml -o /tmp/lookup 2>/dev/null || ocamlopt -g lookup.ml -o /tmp/lookup",
          "OCAMLRUNPARAM=b /tmp/lookup GBP"],
         r"^Fatal error: exception Not_found", r"^Called from", "traceback",
         "there is no rate for GBP: List.assoc raises Not_found", image=ML),
]
CASES += TENTH

ELEVENTH: list[Case] = [
    Case("r-cmd-check", "missing_dependency", "r_stats", "github",
         ["R CMD build --no-build-vignettes .", "R CMD check --no-manual rstats_0.1.0.tar.gz"],
         r"checking package dependencies \.\.\.", r"Package required but not available", "check",
         "DESCRIPTION imports jsonlite, which is not installed in the image", image=R,
         hidden=["sed -i 's/^Encoding: UTF-8/Encoding: UTF-8\\nImports: jsonlite/' DESCRIPTION"]),
    Case("meson", "compile_error", "meson_calc", "gitlab",
         ["meson setup build", "meson compile -C build"],
         r"src/calc.c:\d+:\d+: error:", r"^\s+\|\s+\^", "compiler",
         "calc.c: calc_clamp returns an undeclared 'high'", image=PY,
         hidden=["sed -i 's/if (v > hi) return hi;/if (v > hi) return high;/' src/calc.c"]),
    Case("dune", "missing_library", "ml_ledger", "travis",
         ["dune build"],
         r'^File "bin/dune", line \d+', r'^Error: Library "yojson" not found', "build",
         "bin/dune needs yojson, which is not installed", image=ML,
         hidden=["sed -i 's/(libraries ledger))/(libraries ledger yojson))/' bin/dune"]),
    Case("zig", "runtime_panic", "zig_ring", "jenkins",
         [f"{ZIG} version", f"{ZIG} run window.zig"],
         r"panic: index out of bounds", None, "panic",
         "the window of 3 at offset 4 reads past the 6 readings", image=PY),
    Case("nim", "template_raise", "nim_inv", "gitlab",
         ["nim c -r --hints:off report.nim"],
         r"report.nim\(\d+\)\s+report$", r"Error: unhandled exception", "traceback",
         "describe gets -3: the must() template raises ValueError", image=NIM,
         hidden=["sed -i 's/^echo describe(3)/echo describe(-3)/' report.nim"]),
    Case("gtest", "segfault", "gt_money", "travis",
         ["make test"],
         r"^\[ RUN +\] FormatCents.WholeUnits", r"Segmentation fault", "crash",
         "format_cents reads a null string after the test deletes it: the test binary crashes", image="gcc:12",
         hidden=["sed -i 's/TEST(FormatCents, WholeUnits) { EXPECT_EQ(format_cents(400), \"4.00\"); }/"
                 "TEST(FormatCents, WholeUnits) { std::string* s = nullptr; EXPECT_EQ(format_cents(400), *s); }/' "
                 "test/money_test.cpp"]),
    Case("ghc", "minimum_empty", "hs_shapes", "github",
         ["runghc -isrc test/Crash.hs"],
         r"Prelude.minimum: empty list", None, "traceback",
         "no shape is a Rect, so the minimum of an empty list", image=HS),
]
CASES += ELEVENTH

TWELFTH: list[Case] = [
    Case("scala", "match_error", "scala_calc", "jenkins-freestyle",
         ["mkdir -p /tmp/scalaout && scalac -d /tmp/scalaout Calc.scala", "scala -cp /tmp/scalaout Calc"],
         r"^(?:Exception in thread \"main\" )?scala.MatchError", r"^\s+at Calc\$\.main", "traceback",
         "eval has no case for Div any more: scala.MatchError", image=JDK,
         hidden=["sed -i '/    case Div(a, b) =>/,/      eval(a) \\/ d/d' Calc.scala"]),
    Case("crystal", "type_mismatch", "cr_slug", "plain",
         ["crystal build src/main.cr --no-codegen"],
         r"^In src/slug.cr:\d+:\d+", r"^Error: ", "compiler",
         "make returns the slug's size (Int32) where its signature says String", image=CR,
         hidden=["sed -i \"s/\\.strip('-')/.strip('-').size/\" src/slug.cr"]),
    Case("kotlinc", "missing_import", "kt_orders", "github",
         ["kotlinc -version", KOTLINC],
         r"^Orders.kt:\d+:\d+: error: unresolved reference", r"^\s+\^", "compiler",
         "Orders.kt uses LocalDate without importing java.time.LocalDate", image=KT, timeout=900,
         hidden=["sed -i 's/^data class Order(val id: String, val lines: List<Line>)/data class Order(val id: String, "
                 "val lines: List<Line>, val day: LocalDate? = null)/' Orders.kt"]),
    Case("r", "missing_package", "r_stats", "jenkins",
         ["Rscript -e 'cat(R.version.string, \"\\n\")'", "Rscript report.R"],
         r"^Error in library\(", r"there is no package called", "traceback",
         "report.R loads data.table, which is not installed", image=R,
         hidden=["sed -i '1i library(data.table)' report.R"]),
    Case("gfortran", "undefined_reference", "f90_grid", "travis",
         ["make"],
         r"^/usr/bin/ld: .*: in function", r"undefined reference to", "linker",
         "grid calls smooth_all, which no module defines", image="gcc:12",
         hidden=["sed -i 's/  call smooth(cells, 5)/  call smooth_all(cells, 5)/' grid.f90"]),
    Case("mcs", "missing_namespace", "cs_bank", "plain",
         [MCS],
         r"error CS0246", None, "compiler",
         "Program.cs uses Newtonsoft.Json, which is not referenced", image=MONO,
         hidden=["sed -i '1i using Newtonsoft.Json;' Program.cs",
                 "sed -i 's/            return 0;/            Console.WriteLine(JsonConvert.SerializeObject(accounts));\\n"
                 "            return 0;/' Program.cs"]),
]
CASES += TWELFTH
