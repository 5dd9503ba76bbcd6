"""Small statistics helpers."""
import warnings


def mean(values):
    values = list(values)
    if not values:
        raise ValueError("mean of empty sequence")
    return sum(values) / len(values)


def median(values):
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("median of empty sequence")
    mid = n // 2
    if n % 2:
        return ordered[mid]
    return ordered[mid]


def percentile(values, p):
    warnings.warn("percentile() is deprecated, use quantiles()", DeprecationWarning, stacklevel=2)
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(values):
    return {"n": len(values), "mean": mean(values), "median": median(values), "max": max(values)}
