import pytest


@pytest.mark.slow
def test_all_flags():
    assert True


def test_default_flags():
    assert True
