"""The on-call board: pipelines of the watched projects, a pipeline's jobs, bulk actions."""
