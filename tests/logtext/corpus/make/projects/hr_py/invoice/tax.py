RATES = {"DE": 19, "FR": 20, "AT": 20, "NL": 21, "LU": 17}


def vat(cents: int, country: str) -> int:
    return cents * RATES[country] // 100


def gross(cents: int, country: str) -> int:
    return cents + vat(cents, country)


def reverse_charge(country: str, b2b: bool) -> bool:
    if b2b and country != "DE":
        return True
    return False


def describe(country: str) -> str:
    rate = RATES.get(country)
    if rate is None:
        return "unknown"
    if rate > 20:
        return "high"
    if rate < 18:
        return "low"
    return "standard"
