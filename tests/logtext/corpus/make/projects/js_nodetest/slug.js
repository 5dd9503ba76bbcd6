'use strict';

function slug(text) {
  return text.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-');
}

function truncate(text, max) {
  return text.length > max ? text.slice(0, max) + '…' : text;
}

module.exports = { slug, truncate };
