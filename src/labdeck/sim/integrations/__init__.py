"""Project integrations (spec document 001): the catalog of slugs and parameters."""
