/**
 * A page whose Content-Security-Policy forbids compiling WebAssembly: attaching bitrig fails at
 * setup with an error that names the fix — `'wasm-unsafe-eval'` in `script-src` — and leaves
 * the game's world as it was. Chromium's refusal message is reproduced by a stub of
 * `WebAssembly.Module` in freshly loaded modules.
 */
import { describe, expect, test, vi } from 'vitest';
import { createWorld } from 'bitecs';

describe('WebAssembly refused by a content-security policy', () => {
  test('attachBitrig throws naming \'wasm-unsafe-eval\'; the world is left unattached', async () => {
    vi.resetModules();
    const Orig = WebAssembly.Module;
    (WebAssembly as { Module: unknown }).Module = function refused(): never {
      throw new EvalError("WebAssembly.Module(): Refused to compile or instantiate WebAssembly module because 'unsafe-eval' is not an allowed source of script in the following Content Security Policy directive: \"script-src 'self'\"");
    };
    try {
      const kernels = await import('../../runtime/kernels');
      const { attachBitrig, createBitrigWorld } = await import('../../runtime/world');
      const { isBitrigWorld } = await import('../../core/world');
      expect(kernels.kernelUnavailableReason()).toBeNull(); // (validity first: nothing asked for yet)
      const world = createWorld();
      expect(() => attachBitrig(world)).toThrow(/^bitrig\/world: cannot attach: the page's Content-Security-Policy does not allow compiling WebAssembly .*add 'wasm-unsafe-eval' to script-src/);
      expect(isBitrigWorld(world)).toBe(false);
      expect(Object.keys(world)).toEqual([]); // (nothing of bitrig's left on the game's world)
      expect(() => createBitrigWorld()).toThrow(/'wasm-unsafe-eval'/);
      expect(kernels.kernelUnavailableReason()).toMatch(/^bitrig: the page's Content-Security-Policy does not allow compiling WebAssembly/);
    } finally {
      (WebAssembly as { Module: unknown }).Module = Orig;
      vi.resetModules();
    }
  });
});
