"""The job-log viewer widget (:mod:`~.view`), its document of sanitized lines (:mod:`~.document`),
line rendering (:mod:`~.lines`) and folded sections (:mod:`~.folds`)."""
