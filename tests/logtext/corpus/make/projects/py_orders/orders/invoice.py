from orders.pricing import order_total


def render(order):
    total = order_total(order)
    return f"Invoice {order['id']}: {total:.2f} {order['lines'][0]['currency']}"
