/**
 * One animator frame, in the adapter's own order — mixer → read → scene inputs → bitrig
 * systems → write — with tail physics off meaning what the demo promises: the carried rest
 * pose. (The adapter's `tailPhysics: false` writes the rest pose before the systems run, and
 * the tail systems then overwrite it; re-writing it after the systems shows the rest pose
 * whichever way that is settled. With physics on this is exactly `animator.update`.)
 */
import type { Animator } from '../../adapters/three/index';
import { writeTailRest } from '../../core/binding';
import type { SceneInputs } from '../../core/sceneIK';
import { update as runPipeline } from '../../systems/pipeline';

/**
 * Advance `animator` by dt.
 *
 * @example
 * stepAnimator(animator, dt, params.physics, { feet: [1, 1] });
 */
export function stepAnimator(animator: Animator, dt: number, tailPhysics: boolean, inputs?: SceneInputs): void {
  if (tailPhysics) {
    animator.update(dt, inputs);
    return;
  }
  animator.advanceMixer(dt);
  animator.read();
  if (inputs) animator.setSceneInputs(inputs);
  runPipeline(animator.world, dt);
  for (const b of animator.bindings) writeTailRest(b);
  animator.write();
}
