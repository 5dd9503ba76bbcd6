from shipping.rates import legacy_rate, rate


def test_rate_eu():
    assert rate(1, "EU") == 4.5


def test_legacy_rate_matches():
    assert legacy_rate(1) == rate(1, "EU")
