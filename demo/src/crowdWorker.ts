/**
 * The crowd page's worker: it owns a whole bitrig world — its characters, the systems and every
 * array — and runs a frame when the page asks, posting back the frame's time and the arrays the
 * page compares. bitrig keeps no thread pool: this is how a game moves the work off its thread.
 */
import { update } from '../../systems/pipeline';
import { makeCrowd, read, resultArrays, type Crowd } from './crowdWorld';

let crowd: Crowd | null = null;
self.onmessage = (e: MessageEvent<{ kind: 'init'; n: number } | { kind: 'frame'; f: number }>) => {
  const m = e.data;
  if (m.kind === 'init') { crowd = makeCrowd(m.n); self.postMessage({ kind: 'ready' }); return; }
  if (crowd === null) return;
  read(crowd, m.f);
  const t0 = performance.now();
  update(crowd.world, 1 / 60);
  const ms = performance.now() - t0;
  const arrays = resultArrays(crowd.world);
  self.postMessage({ kind: 'frame', ms, arrays }, { transfer: arrays.map((a) => a.buffer) });
};
