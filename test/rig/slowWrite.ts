/**
 * Test-only preload for the signal test (`node --import tsx --import ./test/rig/slowWrite.ts …`):
 * makes `fs.promises.writeFile` of a `*.tmp` file (what writeFileAtomic writes) stall after
 * its first kilobyte, announce `bitrig-test: writing <file>` on stderr and wait up to 10 s
 * before writing the rest, so a test can send a signal while the write is in progress.
 */
import fs from 'node:fs';

const original = fs.promises.writeFile;
const patched = async (file: unknown, data: unknown, ...rest: unknown[]): Promise<void> => {
  if (typeof file === 'string' && file.endsWith('.tmp') && data instanceof Uint8Array) {
    const h = await fs.promises.open(file, 'w');
    try {
      await h.write(data.subarray(0, 1024));
      process.stderr.write(`bitrig-test: writing ${file}\n`);
      for (let i = 0; i < 200; i++) await new Promise((r) => setTimeout(r, 50));
      await h.write(data.subarray(1024));
    } finally {
      await h.close();
    }
    return;
  }
  return (original as (...a: unknown[]) => Promise<void>)(file, data, ...rest);
};
(fs.promises as { writeFile: unknown }).writeFile = patched;
