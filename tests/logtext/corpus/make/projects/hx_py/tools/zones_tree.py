"""Print the zone hierarchy (each zone names its parent)."""

PARENTS = {"EU": "WORLD", "UK": "EU", "CH": "EU", "US": "WORLD", "WORLD": "EU", "ROOT": "WORLD"}


def depth(zone):
    if zone == "ROOT":
        return 0
    return 1 + depth(PARENTS[zone])


if __name__ == "__main__":
    for zone in sorted(PARENTS):
        print(zone, depth(zone))
