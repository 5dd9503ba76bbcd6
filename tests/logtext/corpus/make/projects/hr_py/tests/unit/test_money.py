from invoice.money import fmt, to_cents


def test_to_cents_rounds_half_up():
    assert to_cents("0.125") == 13


def test_fmt():
    assert fmt(1999) == "19.99 EUR"
