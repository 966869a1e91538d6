#!/usr/bin/env node
/**
 * npm's `prepare` hook. Installing bitrig from a git URL (`npm install git+https://…`), npm
 * clones the repository, installs its dev dependencies and runs `prepare` with
 * `npm_package_resolved` set to the clone: build dist/ then, since the installed package runs
 * from it. In a clone of your own (`npm install`, `npm ci`) it does nothing: the `bitrig` bin
 * runs the sources until `npm run build` makes dist/, and CI installs stay fast.
 */
import { spawnSync } from 'node:child_process';

if (process.env.npm_package_resolved) {
  const r = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(r.status ?? 1);
}
