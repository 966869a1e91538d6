/**
 * `bitrig/three` — the Three.js adapter.
 *
 * @example
 * import { createAnimator } from 'bitrig/three';
 * const animator = createAnimator(gltf.scene, { mixer });
 * renderer.setAnimationLoop(() => { animator.update(clock.getDelta()); renderer.render(scene, camera); });
 */
export { createAnimator, updateAnimators, skeletonSourceFromThree, ANIMATOR_DEFAULTS } from './animator';
export type { Animator, AnimatorOptions, AnimatorDiagnostics, TailDiagnostics } from './animator';
export { characterToThree } from './character';
export type { ThreeCharacter } from './character';
export { placeOnGround } from './ground';
export type { PlaceOnGroundOptions, GroundPlacementThree } from './ground';
