local config = require("config")

local function connect(settings)
  return "connected to " .. settings.database.host .. ":" .. settings.database.port
end

print("loading settings for " .. config.env)
print(connect(config))
