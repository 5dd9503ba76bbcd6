"""The board section: pipelines across projects, and one pipeline by stage."""
