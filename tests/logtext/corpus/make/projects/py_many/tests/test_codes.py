import csv
from pathlib import Path

import pytest

from codes import decode, encode

ROWS = list(csv.DictReader((Path(__file__).parent / "codes.csv").open()))


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["number"])
def test_known_codes(row):
    assert encode(int(row["number"])) == row["code"]
    assert decode(row["code"]) == int(row["number"])
