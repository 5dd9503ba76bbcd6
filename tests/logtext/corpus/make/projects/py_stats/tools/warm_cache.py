"""Warm the build cache; a full disk is not fatal (the cache is an optimisation)."""
import sys

print("warming cache in .cache/pip (3 entries)")
print("WARNING: could not write .cache/pip/http/a/b/c3f2: [Errno 28] No space left on device", file=sys.stderr)
print("cache warm: 2 of 3 entries written, continuing without cache")
