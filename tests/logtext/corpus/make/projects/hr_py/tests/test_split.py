import pytest

from invoice.money import split
from invoice.tax import gross, vat


@pytest.mark.parametrize("country,expected", [("DE", 119), ("FR", 120), ("NL", 121), ("LU", 117)])
def test_gross(country, expected):
    assert gross(100, country) == expected


def test_vat_rounds_down():
    assert vat(99, "DE") == 18


def test_split_even():
    assert split(900, 3) == [300, 300, 300]


def test_split_spreads_the_remainder():
    shares = split(1000, 3)
    assert shares == [334, 333, 333]


def test_split_sums_to_total():
    assert sum(split(1001, 4)) == 1001


def test_split_one_part():
    assert split(5, 1) == [5]
