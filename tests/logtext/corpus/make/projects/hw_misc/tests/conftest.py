def pytest_collection_modifyitems(config, items):
    order = {"smoke": 0, "api": 1}
    items.sort(key=lambda item: order[item.get_closest_marker("suite").args[0]])
