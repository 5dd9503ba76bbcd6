def total(items):
    return sum(i.price for i in items)


def label(item)
    return item.name.title()
