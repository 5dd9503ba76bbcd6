"""Shipping quotes."""
