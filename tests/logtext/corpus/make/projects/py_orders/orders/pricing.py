RATES = {"EUR": 1.0, "USD": 1.08, "GBP": 0.86}


def convert(amount, currency):
    return round(amount * RATES[currency], 2)


def line_total(line):
    return convert(line["qty"] * line["unit_price"], line["currency"])


def order_total(order):
    return sum(line_total(line) for line in order["lines"])
