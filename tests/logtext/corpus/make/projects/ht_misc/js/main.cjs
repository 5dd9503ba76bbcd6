console.log('loading plugin lib');
const { VERSION } = require('./lib.mjs');
console.log(VERSION);
