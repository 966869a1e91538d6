import { defineConfig } from 'tsup';

// Repository scripts written in TypeScript, bundled for Node (Node 20 cannot run .ts files).
export default defineConfig({
  entry: { detail: 'scripts/models/detail.ts' },
  outDir: 'scripts/.out',
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  splitting: false,
  clean: true,
  dts: false,
  sourcemap: false,
  external: [/^@gltf-transform\//, 'bitecs', 'gl-matrix'],
});
