local M = {}

function M.subtotal(items)
  local sum = 0
  for _, item in ipairs(items) do
    sum = sum + item.price * item.qty
  end
  return sum
end

function M.apply_coupon(total, coupon)
  discount = total * coupon.percent / 100
  return total - discount
end

function M.label(item)
  local name, qty = item.name, item.qty
  return name
end

return M
