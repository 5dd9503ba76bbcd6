"""The projects family: views, filters, listing, operations, records and background tasks."""
