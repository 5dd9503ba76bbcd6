def pad(s, n): return s.ljust(n)
