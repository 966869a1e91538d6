/** The committed scene kernels are the compiles of their sources (`npm run build:wasm` after editing wasm/). */
import { describe, expect, test } from 'vitest';
import { TWO_BONE_WASM_BASE64 } from '../../runtime/wasm/twoBoneWasm';
import { SCENE_CONTACTS_WASM_BASE64 } from '../../runtime/wasm/sceneContactsWasm';

type Compile = () => Promise<{ base64: string; sourceSha256: string; bytes: number }>;

describe('scene kernels: committed modules', () => {
  test('runtime/wasm/twoBoneWasm.ts is the compile of wasm/twoBone.ts and sceneContactsWasm.ts of wasm/sceneContacts.ts', async () => {
    const build = await import('../../scripts/build-wasm.mjs' as string) as { compileTwoBoneKernel: Compile; compileSceneContactsKernel: Compile };
    const ik = await build.compileTwoBoneKernel();
    expect(ik.base64 === TWO_BONE_WASM_BASE64, 'runtime/wasm/twoBoneWasm.ts is stale: run npm run build:wasm').toBe(true);
    const scene = await build.compileSceneContactsKernel();
    expect(scene.base64 === SCENE_CONTACTS_WASM_BASE64, 'runtime/wasm/sceneContactsWasm.ts is stale: run npm run build:wasm').toBe(true);
  }, 60_000);
});
