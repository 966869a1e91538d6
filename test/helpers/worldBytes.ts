/**
 * Byte-for-byte world comparisons for the backend tests: snapshots of typed arrays
 * (tolerance: none — every f64 compared by its bits).
 */
import type { BitrigWorld } from '../../core/world';

/** The bytes of a typed array (a view, not a copy). */
export function bytesOf(a: ArrayBufferView): Buffer { return Buffer.from(a.buffer, a.byteOffset, a.byteLength); }

/**
 * Copies of a world's arrays by name: `'tail'` — every tail component array and the pose's
 * `localR`/`worldM` (what the tail step writes); `'all'` — every component and pose array.
 */
export function worldSnapshot(w: BitrigWorld, scope: 'tail' | 'all'): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const comps = w.components as unknown as Record<string, Record<string, unknown>>;
  const names = scope === 'tail' ? ['TailChain', 'TailParticle', 'BendState'] : Object.keys(comps);
  for (const c of names) {
    for (const [key, v] of Object.entries(comps[c]!)) if (ArrayBuffer.isView(v)) out.set(`${c}.${key}`, Buffer.from(bytesOf(v)));
  }
  if (scope === 'tail') {
    out.set('pose.localR', Buffer.from(bytesOf(w.pose.localR)));
    out.set('pose.worldM', Buffer.from(bytesOf(w.pose.worldM)));
  } else {
    for (const [key, v] of Object.entries(w.pose)) if (ArrayBuffer.isView(v)) out.set(`pose.${key}`, Buffer.from(bytesOf(v)));
  }
  return out;
}

/** Throw naming the first array that differs between two snapshots (`what` says where). */
export function expectSameBytes(a: Map<string, Buffer>, b: Map<string, Buffer>, what: string): void {
  for (const [key, buf] of a) {
    if (!buf.equals(b.get(key)!)) throw new Error(`${what}: ${key} differs`);
  }
}
