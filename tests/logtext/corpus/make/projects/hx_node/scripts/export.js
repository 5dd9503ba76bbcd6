const { vat } = require('../src/invoice');

async function exportTotals(invoices) {
  const rows = [];
  for (const inv of invoices) {
    rows.push(`${inv.id};${vat(inv.lines, inv.country)}`);
  }
  return rows;
}

console.log('exporting 3 invoices');
exportTotals([
  { id: 1, country: 'DE', lines: [{ qty: 1, price: 10 }] },
  { id: 2, country: 'AT', lines: [{ qty: 2, price: 10 }] },
]).then((rows) => console.log(rows.join('\n')));
