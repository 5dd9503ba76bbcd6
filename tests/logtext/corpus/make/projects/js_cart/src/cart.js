'use strict';

const TAX = { DE: 0.19, FR: 0.2, US: 0 };

function lineTotal(line) {
  return line.qty * line.price;
}

function subtotal(lines) {
  return lines.reduce((sum, line) => sum + lineTotal(line), 0);
}

function total(lines, country) {
  const rate = TAX[country];
  return Math.round(subtotal(lines) * (1 + rate) * 100) / 100;
}

function applyCoupon(cart, coupon) {
  if (coupon.expires < Date.now()) {
    console.warn(`coupon ${coupon.code} expired, ignoring`);
    return cart;
  }
  return { ...cart, discount: coupon.percent / 100 };
}

function summary(cart) {
  return `${cart.owner.name}: ${cart.lines.length} item(s)`;
}

async function fetchPrices(client, skus) {
  const prices = await client.get('/prices', { skus });
  return prices.items;
}

module.exports = { lineTotal, subtotal, total, applyCoupon, summary, fetchPrices };
