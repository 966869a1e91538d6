/**
 * The shared asset picker: `../shared/assets` beside the repo, when the Vite server found it
 * (see demo/vite.config.ts), listed at `./shared-assets/index.json`. A static build served
 * elsewhere has no list; the pickers then offer only the built-in character.
 */

/** One file in the shared asset folder. */
export interface SharedAsset {
  /** File name (`khronos-fox.glb`). */
  name: string;
  /** Size in bytes. */
  bytes: number;
}

/** List the shared GLB files (empty when the folder or the server route is absent). */
export async function listSharedAssets(): Promise<SharedAsset[]> {
  const res = await fetch('./shared-assets/index.json', { cache: 'no-store' });
  if (!res.ok || !(res.headers.get('content-type') ?? '').includes('json')) return [];
  const body = (await res.json()) as { files?: SharedAsset[] };
  return Array.isArray(body.files) ? body.files : [];
}

/** Fetch one shared GLB as bytes. Throws `bitrig demo: …` when the server cannot give it. */
export async function fetchSharedAsset(name: string): Promise<Uint8Array> {
  const res = await fetch(`./shared-assets/${encodeURIComponent(name)}`);
  if (!res.ok) throw new Error(`bitrig demo: cannot load shared asset ${name} (HTTP ${res.status})`);
  return new Uint8Array(await res.arrayBuffer());
}
