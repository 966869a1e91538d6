/**
 * `bitrig/babylon` — the Babylon.js adapter (`@babylonjs/core` is an optional peer
 * dependency). Same animator API and options as `bitrig/three`; both share all logic
 * through core.
 *
 * @example
 * import { createAnimator } from 'bitrig/babylon';
 * const container = await LoadAssetContainerAsync('fox.glb', scene);
 * container.addAllToScene();
 * const animator = createAnimator(container.meshes[0], { autoUpdate: true });
 */
export { createAnimator, updateAnimators, skeletonSourceFromBabylon, ANIMATOR_DEFAULTS } from './animator';
export type { Animator, AnimatorOptions, AnimatorDiagnostics, TailDiagnostics } from './animator';
