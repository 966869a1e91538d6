/**
 * `bitrig/babylon` — the Babylon.js adapter (`@babylonjs/core` is an optional peer
 * dependency). Same animator API and options as `bitrig/three` (Babylon's scene owns the
 * animation clock, so there is no `mixer` option; `autoUpdate` runs bitrig after Babylon's
 * animations instead); both adapters share all logic through core.
 *
 * @example
 * import { createAnimator } from 'bitrig/babylon';
 * const container = await LoadAssetContainerAsync('fox.glb', scene);
 * container.addAllToScene();
 * const animator = createAnimator(container.meshes[0], { autoUpdate: true });
 */
export { createAnimator, updateAnimators, skeletonSourceFromBabylon, ANIMATOR_DEFAULTS } from './animator';
export type { Animator, AnimatorOptions, AnimatorDiagnostics, TailDiagnostics } from './animator';
export { sceneSkinFromBabylon } from './sceneSkin';
export { mirrorMatrixX, createMirrorXInputs, mirrorSceneDiagnosticsX } from './handedness';
