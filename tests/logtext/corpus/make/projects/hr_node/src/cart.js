export function subtotal(items) {
  return items.reduce((sum, item) => sum + item.price * item.qty, 0);
}

export function applyCoupon(total, coupon) {
  if (!coupon) return total;
  if (coupon.kind === "percent") return Math.round(total * (100 - coupon.value)) / 100;
  if (coupon.kind === "fixed") return Math.max(0, total - coupon.value);
  throw new Error(`unknown coupon kind: ${coupon.kind}`);
}

export function shipping(total, country) {
  if (country === "DE" && total >= 50) return 0;
  return country === "DE" ? 4.9 : 12.5;
}

export function lineLabels(items) {
  return items.map((item) => `${item.qty} x ${item.name}`);
}
