'use strict';

const fs = require('fs');

class Queue {
  constructor(limit) {
    this.limit = limit;
    this.items = [];
  }

  push(item) {
    if (this.items.length > this.limit) {
      throw new RangeError(`queue full (limit ${this.limit})`);
    }
    this.items.push(item);
  }

  drain(handler) {
    let count = 0;
    for (const item of this.items) {
      handler(item);
      count++;
    }
    this.items = [];
    return count;
  }

  save(path) {
    fs.writeFileSync(path, JSON.stringify(this.items));
    return path
  }
}

module.exports = { Queue };
