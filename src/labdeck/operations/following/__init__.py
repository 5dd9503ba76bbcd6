"""Following many jobs at once: one shared read budget, one merged, bounded log.

:class:`~labdeck.operations.following.multi.MultiFollower` runs one
:class:`~labdeck.operations.follower.TraceFollower` per job (the same Range reads and the same
sanitizing as the single log viewer) behind a :class:`~labdeck.operations.following.budget.ReadBudget`,
and writes what arrives into a :class:`~labdeck.operations.following.merged.MergedLog`. The ``F`` view
and ``labdeck follow`` both read that log.
"""
