/**
 * `npm run examples`: serves examples/three.html and examples/babylon.html from a clone, with
 * `bitrig`, `bitrig/three`, `bitrig/babylon` and `bitrig/rig` mapped to the repository's
 * sources (an installed package needs no aliases: the same imports resolve to it).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = (p: string): string => path.join(repoRoot, p);

export default defineConfig({
  root: repoRoot,
  publicDir: false,
  resolve: {
    alias: [
      { find: /^bitrig\/three$/, replacement: src('adapters/three/index.ts') },
      { find: /^bitrig\/babylon$/, replacement: src('adapters/babylon/index.ts') },
      { find: /^bitrig\/rig$/, replacement: src('rig/index.ts') },
      { find: /^bitrig$/, replacement: src('core/index.ts') },
    ],
  },
  server: { open: '/examples/three.html' },
  build: { target: 'es2022' },
  esbuild: { target: 'es2022' },
  optimizeDeps: { esbuildOptions: { target: 'es2022' } },
});
