const assert = require('assert');
const { EventEmitter } = require('events');
const { fetchRates } = require('../src/invoice');

describe('fetchRates', function () {
  this.timeout(300);

  it('resolves with the rates the client emits', async function () {
    const client = new EventEmitter();
    setTimeout(() => client.emit('rate', { DE: 0.19 }), 10);
    const rates = await fetchRates(client);
    assert.strictEqual(rates.DE, 0.19);
  });

  it('is a function', function () {
    assert.strictEqual(typeof fetchRates, 'function');
  });
});
