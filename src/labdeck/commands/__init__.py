"""The ``labdeck`` command line: the console, ``serve``, ``login``/``logout``, ``doctor``, ``audit``
and ``triage`` (:mod:`labdeck.commands.cli` is the entry point). The top layer: it wires the UI, the
simulator and the operations together.
"""
