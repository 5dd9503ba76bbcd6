from shipping.rates import rate, zone_factor


def test_zone_factor():
    assert zone_factor("eu") == 1.0


def test_light_parcel():
    assert rate(1, "UK") == 6.3


def test_heavy_parcel():
    assert rate(4, "EU") == 7.0
