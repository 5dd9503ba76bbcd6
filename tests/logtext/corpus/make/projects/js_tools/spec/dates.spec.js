const { parseDuration, formatDuration } = require('../lib/dates');

describe('dates', () => {
  it('parses milliseconds', () => {
    expect(parseDuration('250ms')).toBe(250);
  });

  it('formats sub-second durations', () => {
    expect(formatDuration(999)).toBe('999ms');
  });

  it('formats an hour', () => {
    expect(formatDuration(3600000)).toEqual('1h');
  });

  it('round-trips minutes', () => {
    expect(formatDuration(parseDuration('3m'))).toBe('3m');
  });
});
