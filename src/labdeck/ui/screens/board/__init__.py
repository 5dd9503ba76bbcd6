"""The on-call board: pipelines of the watched projects, one pipeline's jobs, the alerts that fired."""
