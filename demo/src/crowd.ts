/**
 * Crowd page: the pipeline alone on many characters, in one world on this thread and in a
 * second world that a worker owns whole (crowdWorker.ts), timed side by side and compared byte
 * for byte after every frame. bitrig keeps no thread pool: a game splits the systems' ranges
 * over its own jobs, or, as here, a worker owns the whole world. Skeletons are made in code
 * (hips, two legs, a six-link tail); nothing is drawn.
 */
import { update } from '../../systems/pipeline';
import { tailBackend } from '../../runtime/kernels';
import { makeCrowd, read, resultArrays, sameBytes } from './crowdWorld';
import { reportError, setStatus } from './common';

const median = (xs: number[]): number => { const s = [...xs].sort((p, q) => p - q); return s[s.length >> 1]!; };
const $ = (id: string): HTMLElement => document.getElementById(id)!;
let running = false;

async function run(): Promise<void> {
  if (running) return;
  running = true;
  try { await measure(); } finally { running = false; }
}

/** Ask the worker for one message of `kind` (after posting `msg`). */
function ask<T>(worker: Worker, msg: unknown, kind: string): Promise<T> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<{ kind: string }>) => { if (e.data.kind === kind) resolve(e.data as T); };
    worker.onerror = (e) => reject(new Error(`crowd worker: ${e.message}`));
    worker.postMessage(msg);
  });
}

async function measure(): Promise<void> {
  const n = Number((document.getElementById('count') as HTMLSelectElement).value);
  document.body.dataset.crowdDone = '';
  setStatus(`building ${n.toLocaleString()} characters…`, 'busy');
  await new Promise((r) => setTimeout(r, 0));
  const one = makeCrowd(n);
  const worker = new Worker(new URL('./crowdWorker.ts', import.meta.url), { type: 'module' });
  await ask(worker, { kind: 'init', n }, 'ready');
  $('isolated').textContent = String(globalThis.crossOriginIsolated === true);
  $('backend').textContent = tailBackend(one.world);
  let same = true;
  const tOne: number[] = [], tMany: number[] = [];
  const FRAMES = 90;
  for (let f = 0; f < FRAMES; f++) {
    read(one, f);
    const t0 = performance.now(); update(one.world, 1 / 60); tOne.push(performance.now() - t0);
    const r = await ask<{ ms: number; arrays: Float64Array[] }>(worker, { kind: 'frame', f }, 'frame');
    tMany.push(r.ms);
    if (!sameBytes(resultArrays(one.world), r.arrays)) same = false;
    if (f % 10 === 9) setStatus(`frame ${f + 1} / ${FRAMES}`, 'busy');
  }
  worker.terminate();
  const workers = 1;
  $('threads').textContent = `${workers} (a worker owns the second world)`;
  $('one').textContent = median(tOne.slice(30)).toFixed(2);
  $('many').textContent = median(tMany.slice(30)).toFixed(2);
  $('same').textContent = same ? 'yes' : 'NO';
  document.body.dataset.threads = String(workers);
  document.body.dataset.same = String(same);
  document.body.dataset.isolated = String(globalThis.crossOriginIsolated === true);
  document.body.dataset.crowdDone = '1';
  setStatus(same ? 'done' : 'the two worlds differ', same ? 'info' : 'error');
}

$('run').addEventListener('click', () => { void run().catch(reportError); });
void run().catch(reportError);
