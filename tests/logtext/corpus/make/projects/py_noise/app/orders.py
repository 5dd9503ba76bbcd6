from datetime import date


def overdue(orders, today):
    return [o["id"] for o in orders if o["due"] < today and not o["paid"]]


def parse_due(text):
    day, month, year = text.split("/")
    return date(int(year), int(month), int(day))
