/**
 * `npm run bench`: every benchmark side by side with its comparison, medians of repeats,
 * printed as a table and written to bench/results.json. A benchmark, never a test: the
 * machine is shared and timings are noisy; read the ratios.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, type BenchResult } from './common';

// bench/.out/run.js when built; results go to bench/results.json
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

type Bench = () => Promise<BenchResult[] | BenchResult>;
// Each suite is bundled with the code it measures (npm run bench builds first: tsx's module
// wrappers would cost more than the systems themselves).
const suites: Array<[string, () => Promise<Bench>]> = [
  ['tail', async () => (await import('./tail')).benchTail],
  ['ik', async () => (await import('./ik')).benchIk],
  ['rig', async () => (await import('./rig')).benchRigPass],
  ['bake', async () => (await import('./bake')).benchBake],
  ['adapter', async () => (await import('./adapter')).benchAdapters],
];

const only = process.argv.slice(2);
const results: BenchResult[] = [];
console.log(`bitrig bench — ${machine()}`);
for (const [name, load] of suites) {
  if (only.length && !only.includes(name)) continue;
  const f = await load();
  const t0 = performance.now();
  const r = await f();
  const list = Array.isArray(r) ? r : [r];
  results.push(...list);
  console.log(`- ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const fmt = (v: number | undefined, unit: string): string => (v === undefined ? '' : `${v < 10 ? v.toFixed(2) : v.toFixed(0)} ${unit}`);
console.log('\n| id | ours | comparison | ratio | extra |');
console.log('|---|---|---|---|---|');
for (const r of results) {
  const ours = r.nsPerItem !== undefined ? fmt(r.nsPerItem, 'ns/item') : fmt(r.ms, 'ms');
  const cmp = r.compare ? `${r.compare.id}: ${r.compare.nsPerItem !== undefined ? fmt(r.compare.nsPerItem, 'ns/item') : fmt(r.compare.ms, 'ms')}` : '';
  const extra = r.extra ? Object.entries(r.extra).map(([k, v]) => `${k}=${typeof v === 'number' ? +v.toFixed(3) : v}`).join(', ') : '';
  console.log(`| ${r.id} | ${ours} | ${cmp} | ${r.ratio ? r.ratio.toFixed(1) + '×' : ''} | ${extra} |`);
}
// A partial run (`npm run bench -- tail`) replaces its own entries and keeps the others.
const file = path.join(here, 'results.json');
let all = results;
if (only.length && existsSync(file)) {
  try {
    const prev = (JSON.parse(readFileSync(file, 'utf8')) as { results?: BenchResult[] }).results ?? [];
    const ids = new Set(results.map((r) => r.id));
    all = [...prev.filter((r) => !ids.has(r.id)), ...results];
  } catch { /* unreadable: write this run alone */ }
}
writeFileSync(file + '.tmp', JSON.stringify({ machine: machine(), date: new Date().toISOString(), results: all }, null, 2) + '\n');
renameSync(file + '.tmp', file);
console.log(`\nwritten ${path.join('bench', 'results.json')}`);
