/**
 * A page whose Content-Security-Policy forbids compiling WebAssembly: the world still works (the
 * JavaScript systems), and `kernelUnavailableReason()` names the fix — `'wasm-unsafe-eval'` in
 * `script-src`. Chromium's refusal message is reproduced by a stub of `WebAssembly.Module` in
 * freshly loaded modules.
 */
import { describe, expect, test, vi } from 'vitest';

describe('WebAssembly refused by a content-security policy', () => {
  test('the reason names \'wasm-unsafe-eval\'; the world runs on the JavaScript step', async () => {
    vi.resetModules();
    const Orig = WebAssembly.Module;
    (WebAssembly as { Module: unknown }).Module = function refused(): never {
      throw new EvalError("WebAssembly.Module(): Refused to compile or instantiate WebAssembly module because 'unsafe-eval' is not an allowed source of script in the following Content Security Policy directive: \"script-src 'self'\"");
    };
    try {
      const kernels = await import('../../runtime/kernels');
      const { createBitrigWorld } = await import('../../runtime/world');
      expect(kernels.kernelUnavailableReason()).toBeNull(); // (validity first: nothing asked for yet)
      const world = createBitrigWorld();
      expect(kernels.tailBackend(world)).toBe('js');
      const why = kernels.kernelUnavailableReason();
      expect(why).toMatch(/^bitrig: the page's Content-Security-Policy does not allow compiling WebAssembly/);
      expect(why).toContain("add 'wasm-unsafe-eval' to script-src");
    } finally {
      (WebAssembly as { Module: unknown }).Module = Orig;
      vi.resetModules();
    }
  });
});
