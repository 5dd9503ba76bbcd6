# Totals of a cart.
class Cart
  def initialize(items)
    @items = items
  end

  def total
    @items.sum { |item| item[:price] * item[:qty] }
  end
end

cart = Cart.new([{ price: 5, qty: 2 }, { price: 3 }])
puts "items: 2"
puts "total: #{cart.total}"
