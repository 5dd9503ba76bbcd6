import math


def haversine(a, b):
    lat1, lon1 = map(math.radians, a)
    lat2, lon2 = map(math.radians, b)
    d = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371 * math.asin(math.sqrt(d))


def bearing(a, b):
    lat1, lon1 = a
    lat2, lon2 = b
    return math.degrees(math.atan2(lon2 - lon1, lat2 - lat1)) % 360
