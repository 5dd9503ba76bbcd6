"""The issues section: issue lists, an issue's details, and the issue forms and actions."""
