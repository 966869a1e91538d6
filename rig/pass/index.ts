/**
 * The rig pass (`rigAppendages`) as phases, one file each: model (skeleton and height), weld,
 * distance field, pieces, decide, grow, re-weight; `pipeline.ts` runs them in order. See
 * docs/rig-pass.md for what each phase decides.
 *
 * @example
 * import { rigAppendages } from './pass';
 * const report = rigAppendages(doc);
 */
export { rigAppendages } from './pipeline';
export { assertDocument, describeInput } from './input';
export { BODY_MIN_THICKNESS } from './decide';
export { atChainBound } from './existing';
export type { AppendageKind, AppendageReport, AppendageVerdict, ExistingChainReport, RigReport } from './types';
