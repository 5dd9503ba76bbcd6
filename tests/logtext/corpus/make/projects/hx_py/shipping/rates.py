"""Rates per zone and weight."""

import warnings

ZONES = {"EU": 1.0, "UK": 1.4, "US": 2.1, "CH": 1.7}


def zone_factor(code: str) -> float:
    return ZONES[code.upper()]


def rate(weight_kg: float, code: str) -> float:
    if weight_kg <= 0:
        raise ValueError(f"weight must be positive, got {weight_kg}")
    base = 4.5 if weight_kg < 2 else 4.5 + (weight_kg - 2) * 1.25
    return round(base * zone_factor(code), 2)


def encode_parcel(ref: str) -> str:
    return ref.strip().replace(" ", "_").upper()


def decode_parcel(code: str) -> str:
    return code.replace("_", " ").lower()


def legacy_rate(weight_kg: float) -> float:
    warnings.warn("legacy_rate() is deprecated, use rate()", DeprecationWarning, stacklevel=2)
    return rate(weight_kg, "EU")


def insurance(value: float) -> float:
    if value > 1000:
        return value * 0.02
    if value > 500:
        return value * 0.015
    return 5.0


def customs(code: str, value: float) -> float:
    if code in ("EU",):
        return 0.0
    if value < 150:
        return 0.0
    return round(value * 0.2, 2)
