"""A project's settings: the menu, hooks, protected branches, badges, notifications,
export/import, sharing, users and forks."""
