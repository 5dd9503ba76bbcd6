"""Operations over the client that several screens share, with no UI: following a running job's log
(:mod:`~labdeck.operations.follower`, :mod:`~labdeck.operations.trace_stream`) and planning and
running bulk job actions (:mod:`~labdeck.operations.bulk_plan`).

Same layer as :mod:`labdeck.watch`, :mod:`labdeck.triage` and :mod:`labdeck.auth`, above the client.
"""
