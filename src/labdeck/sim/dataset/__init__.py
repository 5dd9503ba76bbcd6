"""The demo data set: users, groups and projects (``build.build_state``), then the CI and issues
families (``ci``, ``issues``), the on-call scenarios and the triage stories. Deterministic for a seed."""
