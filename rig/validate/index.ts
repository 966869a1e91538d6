/**
 * One validation place for the offline side: GLB bytes ({@link validateGlbBytes}: size,
 * framing, JSON depth, the JSON's shape and byte ranges) and Documents
 * ({@link validateDocument}: finite values, index and joint ranges, weights, key times,
 * cycles), run before any pass reads the document. Limits in {@link INPUT_LIMITS}.
 */
export { INPUT_LIMITS } from './limits';
export type { InputLimits } from './limits';
export { jsonDepth, readGlbChunks } from './json';
export type { GlbChunks } from './json';
export { checkGltfStructure } from './structure';
export { validateDocument } from './document';
export { validateGlbBytes } from './bytes';
