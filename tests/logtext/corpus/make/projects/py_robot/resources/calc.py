def add_numbers(a, b):
    return int(a) + int(b)


def divide_numbers(a, b):
    return int(a) // int(b)
