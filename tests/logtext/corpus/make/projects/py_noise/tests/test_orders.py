from datetime import date

from app.orders import overdue, parse_due


def test_overdue_skips_paid():
    orders = [{"id": 1, "due": date(2026, 1, 1), "paid": True}, {"id": 2, "due": date(2026, 1, 1), "paid": False}]
    assert overdue(orders, date(2026, 2, 1)) == [2]


def test_parse_due_iso():
    assert parse_due("2026-03-04") == date(2026, 3, 4)
