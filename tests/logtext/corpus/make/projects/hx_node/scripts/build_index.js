// Builds the search index of all invoices in memory.
const index = [];
console.log('indexing invoices...');
for (let i = 0; ; i++) {
  index.push({ id: i, text: 'invoice '.repeat(50) + i });
}
