"""Subscription plans."""
import subprocess

PLANS = {"free": 0, "team": 12, "business": 30}


def price(plan: str, seats: int) -> int:
    return PLANS[plan] * max(seats, 1)


def discount(total: int, code: str) -> int:
    if code == "LAUNCH":
        return int(total * 0.8)
    return total


def export(path: str) -> None:
    subprocess.call("gzip -k " + path, shell=True)
