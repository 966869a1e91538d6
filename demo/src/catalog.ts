/// <reference types="vite/client" />
/**
 * The models the demo offers: the repository's own (demo/models, bundled by Vite as URLs),
 * the built-in critter made in code, and the shared ones the dev server finds beside the
 * repository. Also the clip a page starts on, chosen by name.
 */
import type { TailOptions } from '../../core/defaults';

/** URLs of the repository's models, by file name. */
const MODEL_URLS = import.meta.glob('../models/*.glb', { query: '?url', import: 'default', eager: true }) as Record<string, string>;

/** One model of the picker. */
export interface CatalogModel {
  /** File name (`quaternius-fox-detailed.glb`). */
  file: string;
  /** What the picker says. */
  label: string;
  /** URL the page fetches it from. */
  url: string;
  /** Tail options this animal's modelled tail needs (its rest curve, its carry). */
  tail: Partial<TailOptions>;
}

/** Labels and tail presets of the repository's models; unknown files get their name. */
const KNOWN: Record<string, { label: string; tail: Partial<TailOptions> }> = {
  'quaternius-fox-detailed.glb': { label: 'Fox, tail skinned to the legs (as an auto-rigger leaves it)', tail: { restCurve: 1 } },
  'quaternius-fox.glb': { label: 'Fox, with its own 8 tail bones', tail: { restCurve: 1 } },
  'quaternius-shiba-inu.glb': { label: 'Shiba Inu, with its own 3 tail bones', tail: { restCurve: 1, carry: 0 } },
  'khronos-fox.glb': { label: 'Khronos fox, with its own 3 tail bones', tail: { restCurve: 1 } },
  'threejs-robot-expressive.glb': { label: 'Robot (no tail: nothing to repair)', tail: {} },
};

/** The repository's models, the failure case first. */
export const REPO_MODELS: CatalogModel[] = Object.entries(MODEL_URLS)
  .map(([p, url]) => {
    const file = p.slice(p.lastIndexOf('/') + 1);
    const k = KNOWN[file];
    return { file, url, label: k?.label ?? file, tail: k?.tail ?? {} };
  })
  .sort((a, b) => rank(a.file) - rank(b.file) || a.file.localeCompare(b.file));

function rank(file: string): number {
  const order = Object.keys(KNOWN).indexOf(file);
  return order < 0 ? 99 : order;
}

/** The model the tail page opens on. */
export const FIRST_MODEL = 'quaternius-fox-detailed.glb';

/** Fetch a repository model's bytes. Throws `bitrig demo: …` when the server cannot give it. */
export async function fetchRepoModel(m: CatalogModel): Promise<Uint8Array> {
  const res = await fetch(m.url);
  if (!res.ok) throw new Error(`bitrig demo: cannot load ${m.file} (HTTP ${res.status})`);
  return new Uint8Array(await res.arrayBuffer());
}

/**
 * The clip to start on: a walk, else an idle, else the first (names compared without case;
 * an exact name before one that contains it).
 *
 * @example
 * pickClip(['Attack', 'Idle', 'Walk']); // 'Walk'
 */
export function pickClip(names: readonly string[]): string {
  for (const want of ['walk', 'idle']) {
    const exact = names.find((n) => n.toLowerCase() === want);
    if (exact) return exact;
    const part = names.find((n) => n.toLowerCase().includes(want));
    if (part) return part;
  }
  return names[0] ?? '';
}
