"""Invoice maths for the billing service."""
