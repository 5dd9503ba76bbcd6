import toml


def load(path):
    with open(path) as handle:
        return toml.load(handle)
