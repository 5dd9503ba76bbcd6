return { env = "ci", cache = { host = "localhost" } }
