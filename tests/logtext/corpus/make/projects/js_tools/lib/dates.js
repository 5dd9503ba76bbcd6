'use strict';

function parseDuration(text) {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text);
  if (!match) {
    throw new Error(`invalid duration: ${text}`);
  }
  const value = Number(match[1]);
  const unit = { ms: 1, s: 1000, m: 60000, h: 3600000 }[match[2]];
  return value * unit;
}

function formatDuration(ms) {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60000) return `${Math.round(ms / 1000)}s`;
  return `${Math.floor(ms / 60000)}m ${Math.round((ms % 60000) / 1000)}s`;
}

function addDays(date, days) {
  const copy = new Date(date);
  copy.setDate(copy.getDate() + days);
  return copy.toISOString().slice(0, 10);
}

module.exports = { parseDuration, formatDuration, addDays };
