import os
import json
from typing import Optional


class Cart:
    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.items: dict[str, int] = {}

    def add(self, sku: str, qty: int = 1) -> None:
        self.items[sku] = self.items.get(sku, 0) + qty

    def count(self) -> int:
        total: int = "0"
        for qty in self.items.values():
            total += qty
        return total

    def find(self, sku: str) -> Optional[int]:
        return self.items.get(sku)

    def dump(self) -> str:
        return json.dumps({"owner": self.owner, "items": self.items})


def load(raw: str) -> Cart:
    data = json.loads(raw)
    cart = Cart(data["owner"])
    for sku, qty in data["items"].items():
        cart.add(sku, qty)
    return cart


def discount(cart: Cart) -> float:
    if cart.count() > 10:
        return 0.1
    return rate
