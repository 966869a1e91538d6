/**
 * Pieces phase of the rig pass: the connected pieces of far skin (rig/detect.ts), each with
 * the policy's decision ({@link decide}); a worn or body piece is searched again at raised far
 * thresholds for a tail hidden in it.
 */
import type { DetectInput, Piece } from '../detect';
import { findPieces } from '../detect';
import { jointRegions } from '../skeleton';
import { decide } from './decide';
import { areaShareOf, misweightedOf } from './distance';
import { fmt } from './report';
import type { Field, Found, Pieces } from './types';

/** Find and decide every far piece of a skin. */
export function piecesPhase(f: Field): Pieces {
  const { skel } = f.work;
  const { o, H } = f;
  const regions = jointRegions(skel);
  const input: DetectInput = {
    graph: f.graph,
    distance: f.dist,
    far: f.far,
    floatGap: o.floatGapFraction * f.far,
    segs: f.segs,
    jointPositions: skel.positions,
    candidate: f.include,
    regions,
    attachBias: o.attachBias,
    mergeOverlap: o.mergeOverlap,
    height: H,
  };
  const levels: number[] = [];
  if (o.refineStep > 1) for (let t = f.far * o.refineStep; t <= o.maxFarFraction * H * (1 + 1e-9); t *= o.refineStep) levels.push(t);
  const areaShare = (p: Piece): number => areaShareOf(f, p);
  // A long piece on the lower back (a spine joint whose parent is the pelvis) found inside a
  // worn piece may be a tail still joined to the rump at this threshold: searched deeper too.
  const lowBackOf = (p: Piece): boolean => p.attachment >= 0 && skel.parents[p.attachment] === skel.pelvis;
  // [ours] Fat bodies hide tails: the far skin of a quadruped's belly joins the tail's into one
  // worn torso piece. Such a piece is searched again at raised thresholds for a long piece
  // hanging from the pelvis whose root is a compact ring, or whose skin is driven from far
  // away (the rigger's mistake this pass exists for). A skirt's hem is neither.
  const refine = (piece: Piece, k: number): Found[] => {
    if (k >= levels.length) return [];
    const out: Found[] = [];
    for (const sub of findPieces({ ...input, far: levels[k]! }, piece.vertices)) {
      const mis = misweightedOf(f, sub);
      const d = decide(sub, skel, regions, o, H, areaShare, mis);
      if (d.stub && d.kind === 'tail') {
        // A misweighted piece that is no appendage at this threshold: a long tail may still
        // come out of it at a higher one; only when none does is it repaired as a stub.
        const deeper = refine(sub, k + 1);
        if (deeper.some((x) => !x.decision.stub)) out.push(...deeper);
        else {
          d.reason += ` (found inside a worn piece at a raised far threshold of ${fmt(sub.far / H)} H)`;
          out.push({ piece: sub, decision: d, misweighted: mis });
        }
      } else if (d.tail && (sub.collarSpread <= o.maxCollarSpread || mis >= 0.5)) {
        d.reason += ` (found inside a worn piece at a raised far threshold of ${fmt(sub.far / H)} H)`;
        out.push({ piece: sub, decision: d, misweighted: mis });
      } else if (d.worn || (d.kind === 'spine' && lowBackOf(sub))) out.push(...refine(sub, k + 1));
    }
    return out;
  };
  const found: Found[] = [];
  for (const piece of findPieces(input, null)) {
    const misweighted = misweightedOf(f, piece);
    const decision = decide(piece, skel, regions, o, H, areaShare, misweighted);
    found.push({ piece, decision, misweighted });
    if (decision.worn) found.push(...refine(piece, 0));
  }
  return { ...f, regions, found };
}
