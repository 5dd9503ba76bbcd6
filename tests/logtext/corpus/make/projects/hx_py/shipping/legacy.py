"""Old quote parser, kept for the v1 API."""


def parse_quote(line):
    parts = line.split(";")
    if len(parts) != 3
        raise ValueError("bad quote line")
    return {"zone": parts[0], "kg": float(parts[1]), "price": float(parts[2])}
