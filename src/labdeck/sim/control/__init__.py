"""The simulator's control surface under ``/-/sim`` (not part of the GitLab API)."""
