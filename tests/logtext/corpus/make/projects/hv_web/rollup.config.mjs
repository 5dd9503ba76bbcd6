export default { input: 'src/index.js', output: { file: 'dist/app.rollup.js', format: 'es' } };
