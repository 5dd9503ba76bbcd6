from shop.cart import Cart, discount


def price(cart: Cart, unit: float) -> float:
    return cart.count() * unit * (1 - discount(cart))


def label(cart: Cart) -> str:
    return "cart of " + cart.owner + " with " + cart.count() + " items"
