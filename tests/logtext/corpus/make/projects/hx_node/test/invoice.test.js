const { net, vat } = require('../src/invoice');

test('net sums quantity times price', () => {
  expect(net([{ qty: 2, price: 10 }, { qty: 1, price: 5 }])).toBe(25);
});

test('vat for Germany', () => {
  expect(vat([{ qty: 1, price: 100 }], 'DE')).toBe(19);
});
