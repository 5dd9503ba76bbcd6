from decimal import ROUND_HALF_UP, Decimal


def to_cents(amount: str) -> int:
    return int((Decimal(amount) * 100).quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def split(total_cents: int, parts: int) -> list[int]:
    base, rest = divmod(total_cents, parts)
    # the remainder goes to the last share instead of being spread one cent at a time
    return [base] * (parts - 1) + [base + rest]


def fmt(cents: int, currency: str = "EUR") -> str:
    return f"{cents / 100:.2f} {currency}"
