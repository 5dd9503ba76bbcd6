const { lineTotal, subtotal, total, applyCoupon, summary } = require('../src/cart');

describe('totals', () => {
  const lines = [{ qty: 2, price: 10 }, { qty: 1, price: 5.5 }];

  test('line total multiplies quantity by price', () => {
    expect(lineTotal(lines[0])).toBe(20);
  });

  test('subtotal sums the lines', () => {
    expect(subtotal(lines)).toBe(25.5);
  });

  test('total adds German VAT', () => {
    expect(total(lines, 'DE')).toBe(30.35);
  });

  test('total for an unknown country has no tax', () => {
    expect(total(lines, 'CH')).toBe(25.5);
  });
});

describe('coupons', () => {
  test('an expired coupon is ignored', () => {
    const cart = { lines: [] };
    expect(applyCoupon(cart, { code: 'OLD', expires: 0, percent: 10 })).toEqual(cart);
  });

  test('a valid coupon sets the discount', () => {
    const cart = { lines: [] };
    expect(applyCoupon(cart, { code: 'NEW', expires: Date.now() + 1e6, percent: 15 })).toEqual({
      lines: [],
      discount: 0.15,
      coupon: 'NEW',
    });
  });
});
