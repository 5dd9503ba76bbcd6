from hypothesis import given, settings
from hypothesis import strategies as st

from shipping.rates import decode_parcel, encode_parcel


@settings(derandomize=True, database=None)
@given(st.text(alphabet="abcdefgh _", min_size=1, max_size=12))
def test_parcel_ref_round_trips(ref):
    assert decode_parcel(encode_parcel(ref)) == ref


def test_encode_uppercases():
    assert encode_parcel("ab c") == "AB_C"
