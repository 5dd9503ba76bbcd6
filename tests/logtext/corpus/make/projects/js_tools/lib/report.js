'use strict';

const { formatDuration } = require('./dates');

function report(results) {
  const failed = results.filter((r) => r.status == 'failed');
  const lines = failed.map((r) => `${r.name} (${formatDuration(r.ms)})`);
  const unused = results.length;
  return lines.join('\n') + summaryLine(failed.length);
}

module.exports = { report };
