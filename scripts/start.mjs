#!/usr/bin/env node
/**
 * `npm start`: build the demo with Vite (demo/ → demo/dist/) and serve it, printing the URL.
 *
 *   node scripts/start.mjs [--dev] [--host 127.0.0.1] [--port 4173] [--strict-port]
 *
 * --dev serves the sources with Vite's dev server instead (hot reload, no build step).
 * Nothing leaves the machine: the page needs no network, and `../shared/assets` (when
 * present) is served read-only from where it is.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, createServer, preview } from 'vite';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const configFile = path.join(repoRoot, 'demo/vite.config.ts');

function parseArgs(argv) {
  const o = { dev: false, host: 'localhost', port: undefined, strictPort: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--dev') o.dev = true;
    else if (a === '--strict-port') o.strictPort = true;
    else if (a === '--host') o.host = argv[++i];
    else if (a === '--port') o.port = Number(argv[++i]);
    else if (a === '--help' || a === '-h') {
      console.log('usage: node scripts/start.mjs [--dev] [--host HOST] [--port PORT] [--strict-port]');
      process.exit(0);
    } else {
      console.error(`start: unknown argument ${a} (try --help)`);
      process.exit(2);
    }
  }
  if (o.port !== undefined && !(Number.isInteger(o.port) && o.port >= 0 && o.port < 65536)) {
    console.error(`start: --port must be an integer 0…65535, got ${o.port}`);
    process.exit(2);
  }
  return o;
}

const args = parseArgs(process.argv.slice(2));
const net = { host: args.host, port: args.port, strictPort: args.strictPort, open: false };

let server;
if (args.dev) {
  server = await createServer({ configFile, server: net });
  await server.listen();
} else {
  console.log('bitrig demo: building…');
  await build({ configFile, logLevel: 'warn' });
  server = await preview({ configFile, preview: net });
}
const urls = server.resolvedUrls ?? { local: [], network: [] };
const url = urls.local[0] ?? urls.network[0];
console.log(`bitrig demo: ${url}`);
console.log(`  tail page:  ${url}tail.html`);
console.log(`  scene page: ${url}scene.html`);
console.log(`  crowd page: ${url}crowd.html`);
console.log('  (Ctrl+C to stop)');

const stop = async () => { await server.close(); process.exit(0); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
