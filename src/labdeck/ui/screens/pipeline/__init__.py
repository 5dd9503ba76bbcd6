"""The pipeline view: one pipeline's jobs by stage, folded when big, loaded page by page
(:mod:`~.screen`), its header (:mod:`~.header`), stage columns (:mod:`~.columns`), a stage's job list
(:mod:`~.stage_jobs`, :mod:`~.stage_view`) and whole-pipeline bulk actions (:mod:`~.bulk`)."""
