"""Load the native speedups if present."""
import ctypes

print("loading native speedups")
lib = ctypes.CDLL("libfastvat.so.2")
