"""The runners section: runner lists (all, mine, a project's), a runner's details and jobs."""
