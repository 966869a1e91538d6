import { defineConfig } from 'tsup';

// One bundle per public entry point. Engines and heavy offline deps stay external.
export default defineConfig({
  entry: {
    index: 'runtime/index.ts',
    systems: 'runtime/systems.ts',
    character: 'runtime/character.ts',
    internals: 'runtime/internals.ts',
    three: 'adapters/three/index.ts',
    babylon: 'adapters/babylon/index.ts',
    rig: 'rig/index.ts',
    cli: 'cli/main.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  treeshake: true,
  target: 'es2022',
  external: ['three', /^three\//, '@babylonjs/core', /^@babylonjs\//, '@gltf-transform/core', '@gltf-transform/extensions', 'bitecs', 'gl-matrix'],
});
