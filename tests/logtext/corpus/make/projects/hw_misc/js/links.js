// Checks the links of the docs site (against a fixed list here).
const links = { '/docs/install': 200, '/docs/api/v1': 404, '/docs/cli': 200, '/blog/2024/launch': 404 };
let broken = 0;
for (const [path, status] of Object.entries(links)) {
  if (status === 200) {
    console.log(`✓ ${path}`);
  } else {
    console.log(`✗ ${path} (${status})`);
    broken++;
  }
}
console.log(`\n${broken} of ${Object.keys(links).length} links are broken`);
process.exitCode = broken ? 1 : 0;
