'use strict';
const loadConfig = require('./config');

function connect(config) {
  console.log(`[smoke] connecting to ${config.db.url.replace(/:[^:@]*@/, ':***@')}`);
}

console.log('[smoke] starting smoke test');
console.warn('(node) Warning: NODE_ENV is not set, defaulting to development');
const config = loadConfig(process.env);
console.log(`[smoke] port ${config.port}`);
connect(config);
console.log('[smoke] ok');
