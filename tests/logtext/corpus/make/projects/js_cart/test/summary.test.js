const { summary } = require('../src/cart');

test('summary names the owner', () => {
  expect(summary({ owner: { name: 'Ana' }, lines: [1, 2] })).toBe('Ana: 2 item(s)');
});

test('summary of a guest cart', () => {
  expect(summary({ lines: [] })).toBe('guest: 0 item(s)');
});
