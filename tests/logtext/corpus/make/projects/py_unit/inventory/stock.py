class Stock:
    def __init__(self):
        self.items = {}

    def add(self, sku, qty):
        self.items[sku] = self.items.get(sku, 0) + qty

    def remove(self, sku, qty):
        have = self.items.get(sku, 0)
        if qty > have:
            raise ValueError(f"not enough {sku}: have {have}, want {qty}")
        self.items[sku] = have - qty

    def total(self):
        return sum(self.items.values())

    def report(self):
        return ", ".join(f"{sku}={qty}" for sku, qty in self.items.items()) + " total=" + self.total()
