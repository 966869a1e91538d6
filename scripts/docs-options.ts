/**
 * `npm run docs:options`: rewrite the README's tail options table — the block between
 * `<!-- options:begin -->` and `<!-- options:end -->` — from the option table
 * (core/tailOptions.ts). `--check`: exit 1 when the README's block differs.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tailOptionsMarkdown } from '../core/tailOptions';

const BEGIN = '<!-- options:begin -->', END = '<!-- options:end -->';

/** `readme` with the block between the markers replaced by `table`; throws without both markers. */
export function withOptionsTable(readme: string, table: string): string {
  const i = readme.indexOf(BEGIN), j = readme.indexOf(END);
  if (i < 0 || j < i) throw new Error(`docs:options: README.md needs ${BEGIN} … ${END} around the options table`);
  return `${readme.slice(0, i + BEGIN.length)}\n${table}\n${readme.slice(j)}`;
}

const file = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
const text = readFileSync(file, 'utf8');
const next = withOptionsTable(text, tailOptionsMarkdown());
if (process.argv.includes('--check')) {
  if (next !== text) { console.error('docs:options: README.md options table is stale; run npm run docs:options'); process.exit(1); }
  console.log('docs:options: README.md options table is up to date');
} else if (next !== text) {
  writeFileSync(file + '.tmp', next);
  renameSync(file + '.tmp', file);
  console.log('docs:options: wrote README.md options table');
} else console.log('docs:options: README.md options table is up to date');
