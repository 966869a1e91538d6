import { defineConfig } from 'tsup';

/**
 * One bundle per public entry point, listed once in ENTRIES (package.json `exports` names the
 * same files). ESM and CommonJS share their code in chunks (one copy of the core and of the
 * WebAssembly across entries). No source maps: the package ships code and types only.
 * Engines and the glTF libraries stay external (the user's copy is the one used).
 */
export const ENTRIES: Record<string, string> = {
  index: 'runtime/index.ts',
  systems: 'runtime/systems.ts',
  character: 'runtime/character.ts',
  internals: 'runtime/internals.ts',
  three: 'adapters/three/index.ts',
  babylon: 'adapters/babylon/index.ts',
  rig: 'rig/index.ts',
  cli: 'cli/main.ts',
};

export default defineConfig({
  entry: ENTRIES,
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: false,
  splitting: true,
  clean: true,
  treeshake: true,
  target: 'es2022',
  external: ['three', /^three\//, '@babylonjs/core', /^@babylonjs\//, '@gltf-transform/core', '@gltf-transform/extensions', 'bitecs', 'gl-matrix'],
});
