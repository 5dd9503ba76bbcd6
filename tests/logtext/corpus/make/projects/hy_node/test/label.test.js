const { label } = require('../src/label');

test('label for an express order', () => {
  expect(label({ name: 'Ada Lovelace', street: '12 Analytical Way', zip: '10115', city: 'Berlin', express: true }))
    .toMatchSnapshot();
});

test('service is standard by default', () => {
  expect(label({ name: 'x', street: 's', zip: '1', city: 'c' }).service).toBe('STANDARD');
});
