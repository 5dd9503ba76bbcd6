import pytest

from stats.core import mean, median, percentile, summary


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_mean_empty():
    with pytest.raises(ValueError):
        mean([])


def test_median_odd():
    assert median([3, 1, 2]) == 2


def test_median_even():
    assert median([4, 1, 3, 2]) == 2.5


def test_percentile():
    assert percentile([1, 2, 3, 4, 5], 50) == 3


def test_summary():
    assert summary([1, 2, 3, 4]) == {"n": 4, "mean": 2.5, "median": 2.5, "max": 4}


@pytest.mark.parametrize("values,expected", [([1], 1), ([1, 1], 1), ([5, 7], 6)])
def test_median_small(values, expected):
    assert median(values) == expected
