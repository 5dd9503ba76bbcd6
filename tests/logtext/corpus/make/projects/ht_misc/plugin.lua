local config = { retries = 3 }
print("plugin loaded, retries=" .. config.retries)
print("timeout=" .. config.network.timeout)
