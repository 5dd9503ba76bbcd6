"""The CI family: the job engine, its queue and indexes, pipelines, jobs, runners, traces and artifacts."""
