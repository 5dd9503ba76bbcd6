"""The integrations section: a project's integrations and their settings."""
