"""The projects section: the projects table (server filters, star, archive) and a project's details."""
