import { formatPrice } from './format';
import { cartTotal } from './cart';

console.log(formatPrice(cartTotal([{ price: 5, qty: 2 }])));
