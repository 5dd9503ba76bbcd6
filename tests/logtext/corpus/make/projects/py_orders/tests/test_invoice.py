import logging

from orders.invoice import render

log = logging.getLogger("orders")


def test_render_eur():
    order = {"id": 7, "lines": [{"qty": 2, "unit_price": 10.0, "currency": "EUR"}]}
    assert render(order) == "Invoice 7: 20.00 EUR"


def test_render_chf():
    log.info("rendering order 8 in CHF")
    order = {"id": 8, "lines": [{"qty": 1, "unit_price": 99.0, "currency": "CHF"}]}
    assert render(order) == "Invoice 8: 92.00 CHF"


def test_render_usd():
    order = {"id": 9, "lines": [{"qty": 1, "unit_price": 100.0, "currency": "USD"}]}
    assert render(order) == "Invoice 9: 108.00 USD"
