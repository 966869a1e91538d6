import { defineConfig } from 'tsup';

// `npm run bench` bundles the benchmarks with the code they measure (as a user's bundler
// would), so module wrappers do not distort the numbers.
export default defineConfig({
  entry: { run: 'bench/run.ts', stage: 'bench/stage.ts' },
  outDir: 'bench/.out',
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  splitting: false,
  clean: true,
  dts: false,
  sourcemap: false,
  noExternal: ['bitecs', 'gl-matrix'],
  external: ['three', /^three\//, /^@pixiv\//, /^@babylonjs\//, /^@gltf-transform\//, 'gltf-validator'],
});
