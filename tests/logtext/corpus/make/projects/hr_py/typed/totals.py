from typing import Optional


def discount(total: float, code: Optional[str]) -> float:
    if code is None:
        return total
    return total * 0.9


def label(total: float) -> str:
    return "total: " + total


def parse(raw: str) -> int:
    value: int = raw.strip()
    return value
