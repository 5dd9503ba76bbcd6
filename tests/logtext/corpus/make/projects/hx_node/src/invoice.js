const VAT = { DE: 0.19, FR: 0.2, NL: 0.21 };

function net(lines) {
  return lines.reduce((sum, line) => sum + line.qty * line.price, 0);
}

function vat(lines, country) {
  const rate = VAT[country];
  if (rate === undefined) {
    throw new Error(`no VAT rate for ${country}`);
  }
  return Math.round(net(lines) * rate * 100) / 100;
}

function dueDate(issued, terms) {
  if (terms === 'net30') return new Date(issued.getTime() + 30 * 86400000);
  if (terms === 'net60') return new Date(issued.getTime() + 60 * 86400000);
  if (terms === 'eom') return new Date(issued.getFullYear(), issued.getMonth() + 1, 0);
  return issued;
}

function fetchRates(client) {
  return new Promise((resolve) => {
    client.on('rates', resolve);
  });
}

module.exports = { net, vat, dueDate, fetchRates };
