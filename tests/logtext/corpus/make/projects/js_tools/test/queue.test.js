const assert = require('assert');
const { Queue } = require('../lib/queue');

describe('Queue', function () {
  it('refuses items past its limit', function () {
    const q = new Queue(2);
    q.push(1);
    q.push(2);
    assert.throws(() => q.push(3), RangeError);
  });

  it('drains in order', function () {
    const q = new Queue(5);
    q.push('a');
    q.push('b');
    const seen = [];
    assert.strictEqual(q.drain((x) => seen.push(x)), 2);
    assert.deepStrictEqual(seen, ['a', 'b']);
  });

  it('drains asynchronously', function (done) {
    const q = new Queue(5);
    q.push('x');
    setTimeout(() => {
      q.drain((item) => item.toUpperCase().missing.call());
      done();
    }, 10);
  });
});
