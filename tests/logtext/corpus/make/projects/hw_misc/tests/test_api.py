import pytest


@pytest.mark.suite("smoke")
def test_ping():
    assert True


def test_unmarked():
    assert True
