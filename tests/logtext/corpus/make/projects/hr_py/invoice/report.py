from invoice.money import fmt


def lines(items):
    total = sum(cents for _, cents in items)
    print(total)
    return [f"{name}: {fmt(cents)}" for name, cents in items]
