"""The jobs section: a project's jobs table, the live job log, and the job actions both offer."""
