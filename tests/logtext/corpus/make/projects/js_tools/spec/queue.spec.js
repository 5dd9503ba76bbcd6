const { Queue } = require('../lib/queue');

describe('Queue (jasmine)', () => {
  it('saves to a file', () => {
    const q = new Queue(3);
    q.push({ id: 1 });
    expect(q.save('/nonexistent-dir/queue.json')).toBe('/nonexistent-dir/queue.json');
  });
});
