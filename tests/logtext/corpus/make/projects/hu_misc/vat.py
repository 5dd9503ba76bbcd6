"""VAT helpers.

>>> gross(100, "DE")
119.0
>>> gross(100, "AT")
121.0
>>> round(net(119, "DE"), 2)
100.0
"""

RATES = {"DE": 0.19, "AT": 0.2, "FR": 0.2}


def gross(amount, country):
    return amount * (1 + RATES[country])


def net(amount, country):
    return amount / (1 + RATES[country])
