#!/usr/bin/env node
// The `bitrig` command. Runs the built CLI (dist/cli.js: the published package, or a clone
// after `npm run build`); in a clone that has not been built it runs the TypeScript sources
// through tsx (a dev dependency), so `npx bitrig --help` works right after `npm install`.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const built = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const source = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
let cli;
if (existsSync(built)) cli = await import(pathToFileURL(built).href);
else if (existsSync(source)) {
  try {
    const { register } = await import('tsx/esm/api');
    register();
  } catch {
    console.error('bitrig: dist/ is missing and tsx is not installed: run `npm install` then `npm run build` in the repository');
    process.exit(1);
  }
  cli = await import(pathToFileURL(source).href);
} else {
  console.error('bitrig: dist/cli.js is missing: reinstall the package');
  process.exit(1);
}
process.exitCode = await cli.main(process.argv.slice(2));
