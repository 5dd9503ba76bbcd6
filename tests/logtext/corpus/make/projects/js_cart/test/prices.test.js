const { fetchPrices } = require('../src/cart');

jest.setTimeout(800);

test('fetches prices from the price service', async () => {
  const client = { get: () => new Promise(() => {}) };
  const items = await fetchPrices(client, ['a1']);
  expect(items).toHaveLength(1);
});
