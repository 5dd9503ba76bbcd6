const test = require('node:test');
const assert = require('node:assert/strict');
const { slug, truncate } = require('../slug');

test('slug lowercases and joins words', () => {
  assert.equal(slug('Hello World'), 'hello-world');
});

test('slug drops trailing punctuation', () => {
  assert.equal(slug('Ship it!'), 'ship-it');
});

test('truncate keeps short text', () => {
  assert.equal(truncate('abc', 5), 'abc');
});

test('truncate counts the ellipsis', () => {
  assert.equal(truncate('abcdefgh', 5).length, 5);
});
