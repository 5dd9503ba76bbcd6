"""The issues family (spec document 001): issues, their filters, time tracking, notification settings."""
