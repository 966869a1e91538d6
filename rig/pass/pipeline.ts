/**
 * The rig pass: find the pieces of skin far from the skeleton on every skin of a
 * glTF-Transform Document, decide per piece (chain, rigid, left alone), grow a chain of bones
 * along a tail and re-weight its skin. Works in place on the Document; no file I/O, no Node
 * imports (runs in the browser too). Everything is in bind space, model units.
 *
 * Reads: skins (joints, inverse bind matrices), POSITION, JOINTS_0/WEIGHTS_0 (and _1) of every
 * primitive using a skin. Writes: new joint nodes under the pelvis, the skin's joints and
 * inverse bind matrices, JOINTS/WEIGHTS of the re-weighted vertices only. Clips untouched.
 *
 * Beyond the basic method (each an option):
 * - Fat bodies hide tails: a quadruped's far belly skin joins the tail's into one worn torso
 *   piece at 7 % of H. Such a piece is searched again at raised thresholds (×1.25 per step up
 *   to 0.3 H) for a long piece hanging from the pelvis with a compact root ring (collar spread
 *   ≤ 0.4 of its reach) or skin driven from far away.
 * - The re-weighted domain of a tail is its far piece plus the connected skin that is driven
 *   from far away (weighted bone distance − skeleton distance > 3.5 % of H), crossing between
 *   touching shells: a tail's root ring, or a whole tail shell, given to a shin is tail too.
 *   Its geodesic coordinate starts at the ring of kept body skin around that domain.
 * - Tail candidates whose domains touch are one tail; floating shells (a tip in another
 *   material) join the piece they touch; unwelded shells of one tail are bridged.
 * - Only pieces reaching at least 15 % of H from their collar are long (belt pouches are not).
 * - Body, not worn: a long torso piece that fails the appendage tests is worn (a cape, a
 *   skirt: made rigid only with include "torso") unless it is the body itself: a volume, not a
 *   thin sheet (sqrt(λ3/λ2) ≥ BODY_MIN_THICKNESS 0.3: a cape is a sheet), that is elongated
 *   (≥ minElongation) along a direction more than 45° from up (it lies along the body like a
 *   quadruped's belly, flanks and neck, where capes and straps hang), or holds at least half
 *   of the surface area of all skins sharing its skeleton's joint nodes (exporters that write
 *   one skin per mesh put a cape in a skin of its own). Such a piece is kind `body`, searched
 *   for a hidden tail like a worn one, and never made rigid.
 * - A tail chain the skin already has (found by name: an artist's `Tail1…`, or `Tail_1…` from
 *   an earlier run) never gets a second chain beside it. Tail skin is at such a chain when its
 *   nearest bone is one of the chain's (or its parent) and it lies within the tail's diameter
 *   of the chain's polyline (2 × the RMS distance of the domain from its own axis, at least
 *   the far threshold: the chain runs inside the tail); each vertex goes to its nearest chain,
 *   so a forked tail with a chain per branch is done in one run. A domain ≥ 25 % at chains is
 *   re-weighted onto them when at least half of it lies along them while weighted mostly to
 *   other bones that are farther (by the absorb margin) than the chain: weights by the
 *   blend on the coordinate of the nearest point of the chain's polyline. Otherwise (or in
 *   rigid mode) it is left alone and the report names the chain. The part of the domain beyond
 *   every chain's bound (a separate tail nearby, a fork's bare branch) grows its own chain when
 *   it is long. So a run on the pass's own output changes nothing.
 * - A misweighted piece at the pelvis or lower back (half of it or more driven from far away)
 *   is a stub, repaired whatever its length: a chain of 2–3 links when tail-shaped and long
 *   enough for its mesh, else rigid on the pelvis (decide.ts, grow.ts); one outward and
 *   reaching 2.5 × minReach gets a tail's chain however wide; a misweighted speck there is a
 *   stub (a low-poly bob tail).
 * - Chain weights blend wider at a joint that a long edge crosses (grow.ts `jointBlend`).
 * - A chain starts where the tail leaves the body, not inside a rump its domain spilled over
 *   (base.ts); twin or forked tails from one root get a chain each (fork.ts).
 *
 * Phases, one file each (docs/rig-pass.md): model → weld → distance field → pieces → decide →
 * grow → re-weight.
 */
import type { Document } from '@gltf-transform/core';
import type { RigOptionsInput } from '../options';
import { mergeRigOptions } from '../options';
import { decidePhase } from './decide';
import { distancePhase } from './distance';
import { growPhase } from './grow';
import { assertDocument } from './input';
import { validateDocument } from '../validate/index';
import { modelNotes, readModel } from './model';
import { piecesPhase } from './pieces';
import { reweightPhase } from './reweight';
import type { ExistingChainReport, AppendageReport, RigReport, SkinResult, SkinStart } from './types';
import { weldPhase } from './weld';

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * Find tails (and other far pieces) on every skin of `doc`, grow bone chains along the
 * tails and re-weight their skin, in place. Tail skin at a tail chain the skin already has
 * goes onto that chain or is left alone (see the header); `existingChains` lists such chains.
 * A skin without inverse bind matrices has identity ones (glTF 2.0): all its joints sit at the
 * bind-space origin, so it is left as it is with a note. Throws `bitrig/rig: …` on bad input
 * (not a Document, no skin, a model of zero height, bad options).
 *
 * @example
 * const io = new WebIO();
 * const doc = await io.readBinary(bytes);
 * const report = rigAppendages(doc, { mode: 'chain' });
 * for (const a of report.appendages) console.log(a.verdict, a.attachment, a.reason);
 */
export function rigAppendages(doc: Document, options: RigOptionsInput = {}): RigReport {
  assertDocument(doc, 'bitrig/rig');
  // Refuse a malformed document before any phase reads it (the same checks as the CLI).
  const inputNotes = validateDocument(doc, 'bitrig/rig');
  const t0 = now();
  const o = mergeRigOptions(options);
  const progress = (step: string, f: number): void => {
    if (o.onProgress) o.onProgress(step, Math.min(1, Math.max(0, f)));
  };
  progress('skeleton', 0);
  const { works, H, up, skeletonArea } = readModel(doc, o);
  const appendages: AppendageReport[] = [];
  const existingChains: ExistingChainReport[] = [];
  let chains = 0;
  let changedVertices = 0;
  works.forEach((work, wi) => {
    if (work.mesh.count === 0 || work.skip) return;
    const skinProgress = (step: string, f: number): void => progress(step, (wi + f) / works.length);
    const r = rigSkin({ doc, work, o, H, far: o.farFraction * H, chainsBefore: chains, skeletonArea: skeletonArea[wi]!, progress: skinProgress });
    appendages.push(...r.reports);
    existingChains.push(...r.existing);
    chains += r.chains;
    changedVertices += r.changed;
  });
  progress('done', 1);
  return { appendages, height: H, up, chains, existingChains, notes: [...modelNotes(works), ...inputNotes], changedVertices, ms: now() - t0 };
}

/** The pass on one skin: each phase a function from one record to the next. */
function rigSkin(s: SkinStart): SkinResult {
  s.progress('weld', 0.05);
  const welded = weldPhase(s);
  s.progress('distance', 0.15);
  const field = distancePhase(welded);
  s.progress('pieces', 0.35);
  const pieces = piecesPhase(field);
  s.progress('decide', 0.45);
  const grown = growPhase(decidePhase(pieces));
  s.progress('write', 0.85);
  return reweightPhase(grown);
}
