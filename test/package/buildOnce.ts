/**
 * Global setup of `npm run test:browser`: build the package once (dist/) for the package,
 * size and type tests, which read the build instead of each making their own.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`bitrig tests: the package build (npm run build) failed:\n${r.stdout}\n${r.stderr}`);
}
