"""The trace document's cause: the same answer as ``labdeck explain`` on the viewer's display lines
(what ``e``/``E`` visit, in rank order), with the passing log as its baseline."""

from __future__ import annotations

from labdeck.logtext.cause import read_cause
from labdeck.ui.widgets.trace.document import TraceDocument

ESC = "\x1b"
LOG = (f"Running with gitlab-runner 17.2.0\nsection_start:1700000000:step_script\r{ESC}[0K{ESC}[0K{ESC}[36;1mExecuting"
       f" \"step_script\" stage{ESC}[0;m\n{ESC}[32;1m$ ./configure{ESC}[0;m\nchecking foo... error: using bundled foo\n"
       f"{ESC}[32;1m$ make{ESC}[0;m\nwarning: deprecated key in Makefile\nerror: config key 'x' is deprecated\n"
       f"src/sync.c:3:10: {ESC}[01;31merror: {ESC}[mexpected ';'\n"
       f"make: *** [Makefile:4: sync.o] Error 1\nsection_end:1700000100:step_script\r{ESC}[0K\n"
       f"{ESC}[31;1mERROR: Job failed: exit code 2{ESC}[0;m\n")


def _document(text: str) -> TraceDocument:
    document = TraceDocument(keep_raw=False)
    document.feed(text)
    document.finish()
    return document


def test_the_viewer_reads_the_same_cause_as_explain() -> None:
    document = _document(LOG)
    try:
        answer = document.cause()
        assert answer.error is not None and answer.error == read_cause(LOG).error
        assert [b.line for b in answer.candidates] == [b.line for b in read_cause(LOG).candidates]
        assert document.find_first_error() == answer.error.line - 1
        assert document.cause() is answer  # read once while no line is added
    finally:
        document.close()


def test_the_passing_log_reorders_what_e_visits() -> None:
    passing = LOG.replace("src/sync.c:3:10: \x1b[01;31merror: \x1b[mexpected ';'\n", "").replace("exit code 2", "")
    document = _document(LOG)
    try:
        before = document.cause()
        document.set_passing(passing)
        after = document.cause()
        assert before.new_lines is None and after.new_lines is not None
        assert after.error is not None and "sync.c" in after.error.text
        assert after.new_lines and after.error.line in after.new_lines
        # The config error the green run printed too is visited after the new one (it came first before).
        texts = [block.text for block in after.candidates]
        config = next(i for i, text in enumerate(texts) if "config key" in text)
        assert config > next(i for i, text in enumerate(texts) if "sync.c" in text)
        assert "config key" in before.candidates[0].text or "sync.c" in before.candidates[0].text
    finally:
        document.close()
