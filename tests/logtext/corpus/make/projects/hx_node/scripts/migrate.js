import { readFileSync } from 'node:fs';

const plan = JSON.parse(readFileSync('migrations.json', 'utf8'));
console.log(`applying ${plan.length} migrations`);
