const assert = require('assert');
const { Store } = require('../src/label');

describe('Store', function () {
  let store;

  beforeEach(function () {
    store = new Store(process.env.STORE_URL || 'mysql://localhost/labels').connect();
  });

  it('keeps the url', function () {
    assert.ok(store.url);
  });

  it('connects once', function () {
    assert.strictEqual(store.connect(), store);
  });
});
