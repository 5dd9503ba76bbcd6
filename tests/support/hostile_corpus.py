"""Hostile job-trace samples: each is (name, raw text, text a user must see after sanitizing).

The expected value is the *visible* text (SGR removed); the tests also check that nothing but
canonical SGR survives. Sources: reliability.md §2 (precedents and pitfalls).
"""

from __future__ import annotations

ESC = "\x1b"
BEL = "\x07"
ST = ESC + "\\"

HOSTILE: list[tuple[str, str, str]] = [
    ("osc52 clipboard write, BEL", f"before{ESC}]52;c;cm0gLXJmIH4=" + BEL + "after", "beforeafter"),
    ("osc52 clipboard write, ST", f"before{ESC}]52;c;cm0gLXJmIH4={ST}after", "beforeafter"),
    ("osc52 clipboard write, 8-bit ST", f"before{ESC}]52;c;cm0gLXJmIH4=\x9cafter", "beforeafter"),
    ("osc8 hyperlink keeps its text, drops the target",
     f"see {ESC}]8;;https://evil.example/x{ST}the docs{ESC}]8;;{ST} now", "see the docs now"),
    ("window title set", f"{ESC}]0;pwned{BEL}{ESC}]2;pwned too{ST}ok", "ok"),
    ("DECSET alternate screen and mouse", f"{ESC}[?1049h{ESC}[?1000h{ESC}[?2004hscreen{ESC}[?1049l", "screen"),
    ("cursor movement to overwrite earlier lines",
     f"all tests passed\n{ESC}[1A{ESC}[2K{ESC}[5;1H{ESC}[1;1fFAILED", "all tests passed\nFAILED"),
    ("erase display and scrollback", f"{ESC}[2J{ESC}[3J{ESC}[Hclean", "clean"),
    ("erase line forms", f"a{ESC}[0Kb{ESC}[Kc{ESC}[2Kd", "abcd"),
    ("DCS request status string", f"x{ESC}P$qm{ST}y", "xy"),
    ("DCS tmux passthrough", f"x{ESC}Ptmux;{ESC}{ESC}]52;c;Zm9v{BEL}{ST}y", "xy"),
    ("8-bit CSI", "a\x9b2Jb\x9b31mc", "abc"),
    ("8-bit OSC with BEL", "a\x9d0;title\x07b", "ab"),
    ("8-bit DCS, SOS, PM, APC", "a\x90q#0;2;0;0;0\x9cb\x98sos\x9cc\x9epm\x9cd\x9fapc\x9ce", "abcde"),
    ("stray C1 controls", "a\x84b\x85c\x8dd\x9ce", "abcde"),
    ("bidi override (Trojan Source)", "access = \u202eresu\u202c; \u2066admin\u2069", "access = resu; admin"),
    ("bidi marks and BOM", "\ufeffa\u200eb\u200fc\u061cd", "abcd"),
    ("ESC c full reset", f"one{ESC}ctwo", "onetwo"),
    ("save/restore cursor, keypad, charset", f"{ESC}7a{ESC}8b{ESC}={ESC}>c{ESC}(0d{ESC})Be{ESC}#8f", "abcdef"),
    ("queries that make the terminal answer", f"{ESC}[6n{ESC}[c{ESC}[21t{ESC}[>0q{ESC}]11;?{BEL}q", "q"),
    ("APC with BEL (BuildKite timestamps)", f"{ESC}_bk;t=1700000000000{BEL}line one\n", "line one\n"),
    ("kitty graphics APC", f"{ESC}_Gf=100;AAAA{ST}img", "img"),
    ("re-assembly attempt CSI", f"x{ESC}{ESC}[0m[2J", "x[2J"),
    ("re-assembly attempt OSC", f"{ESC}{ESC}[31m]52;c;Zm9v{ESC}{ESC}[0m\\", "]52;c;Zm9v\\"),
    ("nested ESC inside CSI", f"a{ESC}[3{ESC}[31mb", "ab"),
    ("C0 controls", "a\x00b\x07c\x08d\x0be\x0cf\x0eg\x7fh", "abcdefgh"),
    ("CAN and SUB abort a sequence", f"a{ESC}[31\x18b{ESC}]0;t\x1ac", "abc"),
    ("lone ESC at end", f"tail{ESC}", "tail"),
    ("blink and conceal dropped", f"{ESC}[5mblink {ESC}[8mhidden{ESC}[0m", "blink hidden"),
    ("huge SGR parameter", f"{ESC}[99999999999999999999mbig", "big"),
    ("too many SGR parameters", ESC + "[" + ";".join(["1"] * 40) + "mmany", "many"),
    ("underline colour with conceal index", f"{ESC}[58;5;8mx", "x"),
    ("unterminated OSC hides at most one line", f"{ESC}]52;c;AAAA\nvisible", "\nvisible"),
    ("unterminated OSC payload over the cap is shown", f"{ESC}]0;" + "A" * 5000 + BEL + "end", "A" * 906 + "end"),
    ("CR hides text (kept for the line layer)", "rm -rf /\rls", "rm -rf /\rls"),
]

# Sequences split across network chunks: the expected visible text of the joined stream.
SPLIT_SEQUENCES: list[tuple[list[str], str]] = [
    ([f"a{ESC}", "[31mred", f"{ESC}[0m"], "ared"),
    ([f"a{ESC}[3", "1", "mred"], "ared"),
    ([f"x{ESC}]52;c;", "Zm9v", BEL + "y"], "xy"),
    ([f"x{ESC}]8;;http://e", f"vil{ESC}", "\\link"], "xlink"),
    (["a\x9b", "2", "Jb"], "ab"),
    ([f"a{ESC}P$", "qm", ESC, "\\b"], "ab"),
]

# Raw bytes (before UTF-8 decoding), for the line layer and the follower.
HOSTILE_BYTES: list[bytes] = [
    b"\x1b]52;c;cm0gLXJmIH4=\x07clip\n",
    "8-bit CSI as UTF-8 \u009b2J\n".encode(),
    b"\xc2\x9b31mraw C1 as Latin-1 bytes\n",
    b"invalid utf-8 \xff\xfe\n",
    "split multi-byte \u00e9\u20ac\U0001f600\n".encode(),
]
