/**
 * A test skeleton: `Hips` with a straight tail of `links` bones hanging back and down from it
 * (0.8 m in all) and (with `withEnd`) a `Tail_End` helper, bind pose at rest (identity
 * rotations), as `bindSkeleton` takes it.
 */
import type { SkeletonSource } from '../../core/binding';

/** Hips, Tail_1…Tail_links and Tail_End; metres. */
export function chainSource(links: number, withEnd = true): SkeletonSource & { rest: { t: number[]; r: number[]; s: number[] }[] } {
  const names = ['Hips'];
  const parents = [-1];
  const rest = [{ t: [0, 0.9, 0], r: [0, 0, 0, 1], s: [1, 1, 1] }];
  const inverseBind: number[][] = [];
  const seg = 0.8 / links;
  let wy = 0.9, wz = 0;
  inverseBind.push([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -wy, 0, 1]);
  for (let i = 0; i < links; i++) {
    names.push(`Tail_${i + 1}`);
    parents.push(i);
    const t = i === 0 ? [0, -0.05, -0.1] : [0, -0.5 * seg, -0.866 * seg];
    rest.push({ t, r: [0, 0, 0, 1], s: [1, 1, 1] });
    wy += t[1]!; wz += t[2]!;
    inverseBind.push([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -wy, -wz, 1]);
  }
  if (withEnd) {
    names.push('Tail_End');
    parents.push(links);
    rest.push({ t: [0, -0.5 * seg, -0.866 * seg], r: [0, 0, 0, 1], s: [1, 1, 1] });
    wy += -0.5 * seg; wz += -0.866 * seg;
    inverseBind.push([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -wy, -wz, 1]);
  }
  return { names, parents, rest, inverseBind };
}
