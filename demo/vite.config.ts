/**
 * Vite config of the bitrig demo (`npm start`). Three pages (index, tail, scene) built from
 * `demo/` into `demo/dist/`. The library is imported from the repo's own sources.
 *
 * When `../shared/assets` exists next to the repo, the dev and preview servers answer
 * `/shared-assets/index.json` (the list of `.glb` files there) and `/shared-assets/<file>.glb`
 * (streamed from that folder; nothing is copied into the repo or the build). Without the
 * folder the list is empty and the pickers only offer the built-in character.
 */
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Connect, Plugin } from 'vite';
import { defineConfig } from 'vite';

const demoRoot = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(demoRoot, '..');
/** The shared asset folder beside the repo (may be absent). */
export const sharedAssetsDir = path.resolve(repoRoot, '../shared/assets');

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*\.glb$/;

function sharedAssetsMiddleware(): Connect.NextHandleFunction {
  return (req, res, next) => {
    const url = (req.url ?? '').split('?')[0]!;
    if (!url.startsWith('/shared-assets/')) return next();
    const name = decodeURIComponent(url.slice('/shared-assets/'.length));
    const present = existsSync(sharedAssetsDir);
    if (name === 'index.json') {
      const files = present
        ? readdirSync(sharedAssetsDir).filter((f) => SAFE_NAME.test(f)).sort().map((f) => ({ name: f, bytes: statSync(path.join(sharedAssetsDir, f)).size }))
        : [];
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Cache-Control', 'no-store');
      res.end(JSON.stringify({ files }));
      return;
    }
    const file = path.join(sharedAssetsDir, name);
    if (!present || !SAFE_NAME.test(name) || !existsSync(file)) {
      res.statusCode = 404;
      res.end('not found');
      return;
    }
    res.setHeader('Content-Type', 'model/gltf-binary');
    res.setHeader('Content-Length', String(statSync(file).size));
    createReadStream(file).pipe(res);
  };
}

/** Serves `../shared/assets` read-only on the dev and preview servers. */
function sharedAssets(): Plugin {
  return {
    name: 'bitrig-shared-assets',
    configureServer(server) { server.middlewares.use(sharedAssetsMiddleware()); },
    configurePreviewServer(server) { server.middlewares.use(sharedAssetsMiddleware()); },
  };
}

/** Cross-origin isolation (SharedArrayBuffer, so the crowd page's worker threads can run). */
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

export default defineConfig({
  root: demoRoot,
  base: './',
  publicDir: false,
  plugins: [sharedAssets()],
  resolve: {
    // glTF-Transform's NodeIO imports these lazily; the demo only uses WebIO.
    alias: { 'node:fs': path.join(demoRoot, 'src/nodeShim.ts'), 'node:path': path.join(demoRoot, 'src/nodeShim.ts') },
  },
  server: { fs: { allow: [repoRoot] }, headers: isolation },
  preview: { headers: isolation },
  build: {
    outDir: path.join(demoRoot, 'dist'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 4000,
    reportCompressedSize: false,
    rolldownOptions: {
      input: {
        index: path.join(demoRoot, 'index.html'),
        tail: path.join(demoRoot, 'tail.html'),
        scene: path.join(demoRoot, 'scene.html'),
        crowd: path.join(demoRoot, 'crowd.html'),
      },
    },
  },
});
