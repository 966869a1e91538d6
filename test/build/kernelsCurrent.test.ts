/**
 * The committed WebAssembly modules are the compiles of their AssemblyScript sources (run
 * `npm run build:wasm` after editing wasm/). A build check: it compiles all three kernels (about
 * 20 s), so it runs with the other build tests in `npm run test:browser`.
 */
import { describe, expect, test } from 'vitest';
import { TAIL_STEP_WASM_BASE64 } from '../../runtime/wasm/tailStepWasm';
import { TWO_BONE_WASM_BASE64 } from '../../runtime/wasm/twoBoneWasm';
import { SCENE_CONTACTS_WASM_BASE64 } from '../../runtime/wasm/sceneContactsWasm';

type Compile = () => Promise<{ base64: string; sourceSha256: string; bytes: number }>;

describe('WebAssembly kernels: committed modules', () => {
  test('tailStepWasm.ts, twoBoneWasm.ts and sceneContactsWasm.ts are the compiles of wasm/tailStep.ts, wasm/twoBone.ts and wasm/sceneContacts.ts', async () => {
    const build = await import('../../scripts/build-wasm.mjs' as string) as { compileTailKernel: Compile; compileTwoBoneKernel: Compile; compileSceneContactsKernel: Compile };
    const tail = await build.compileTailKernel();
    expect(tail.base64 === TAIL_STEP_WASM_BASE64, 'runtime/wasm/tailStepWasm.ts is stale: run npm run build:wasm').toBe(true);
    const ik = await build.compileTwoBoneKernel();
    expect(ik.base64 === TWO_BONE_WASM_BASE64, 'runtime/wasm/twoBoneWasm.ts is stale: run npm run build:wasm').toBe(true);
    const scene = await build.compileSceneContactsKernel();
    expect(scene.base64 === SCENE_CONTACTS_WASM_BASE64, 'runtime/wasm/sceneContactsWasm.ts is stale: run npm run build:wasm').toBe(true);
  }, 120_000);
});
