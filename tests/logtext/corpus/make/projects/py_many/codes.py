"""Short base-36 codes for account numbers."""

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def encode(number):
    out = ""
    while number:
        number, rest = divmod(number, 36)
        out = ALPHABET[rest] + out
    return out or "0"


def decode(code):
    value = 0
    for char in code:
        value = value * 36 + ALPHABET.index(char)
    return value
