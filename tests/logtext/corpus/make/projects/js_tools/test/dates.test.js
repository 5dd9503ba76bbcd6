const assert = require('assert');
const { parseDuration, formatDuration, addDays } = require('../lib/dates');

describe('parseDuration', function () {
  it('parses seconds', function () {
    assert.strictEqual(parseDuration('5s'), 5000);
  });

  it('parses hours', function () {
    assert.strictEqual(parseDuration('2h'), 7200000);
  });

  it('rejects garbage', function () {
    assert.throws(() => parseDuration('soon'), /invalid duration/);
  });

  it('accepts days', function () {
    assert.strictEqual(parseDuration('1d'), 86400000);
  });
});

describe('formatDuration', function () {
  it('formats minutes and seconds', function () {
    assert.strictEqual(formatDuration(90500), '1m 31s');
  });

  it('formats exactly one minute', function () {
    assert.strictEqual(formatDuration(60000), '1m');
  });
});

describe('addDays', function () {
  it('crosses a month', function () {
    assert.deepStrictEqual({ day: addDays('2026-01-31T00:00:00Z', 1) }, { day: '2026-02-01' });
  });
});
