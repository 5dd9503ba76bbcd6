local M = {}

function M.round(x)
  return math.floor(x * 100 + 0.5) / 100
end

return M
