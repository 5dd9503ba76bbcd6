from shipping.legacy import parse_quote


def test_parse_quote():
    assert parse_quote("EU;1;4.5")["zone"] == "EU"
