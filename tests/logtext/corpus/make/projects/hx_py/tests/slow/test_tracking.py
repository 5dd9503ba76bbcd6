import time

import pytest


def poll_tracking(parcel_id, attempts=30):
    for _ in range(attempts):
        time.sleep(0.2)
    return "in transit"


def test_tracking_fast():
    assert poll_tracking("P1", attempts=1) == "in transit"


@pytest.mark.timeout(1)
def test_tracking_delivered():
    assert poll_tracking("P2") == "delivered"
