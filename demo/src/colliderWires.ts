/**
 * The tail page's collider overlay: every collider of an animator drawn as a wireframe capsule
 * (three rings round each end, four lines along the sides; a sphere is a capsule of zero length)
 * in world space, from the colliders' shapes this frame (`TailCollider.shapeCur`). Buffers are
 * made once; `update` rewrites them.
 */
import { BufferAttribute, BufferGeometry, LineBasicMaterial, LineSegments } from 'three';
import type { Animator } from '../../adapters/three/index';
import { MAX_CHAIN_COLLIDERS, SHAPE_STRIDE } from '../../core/components/collider';

const SEGS = 16;
/** Line segments per capsule: 2 ends × 3 rings × SEGS, 4 side lines. */
const PER = 2 * 3 * SEGS + 4;
const MAX = 2 * MAX_CHAIN_COLLIDERS;

/** The overlay: add `lines` to the scene, call `update(animator)` after each frame. */
export interface ColliderWires {
  lines: LineSegments;
  update(a: Animator | null): void;
}

/** Make the overlay (hidden until `update` sees colliders). */
export function createColliderWires(): ColliderWires {
  const pos = new Float32Array(MAX * PER * 2 * 3);
  const geo = new BufferGeometry();
  geo.setAttribute('position', new BufferAttribute(pos, 3));
  const lines = new LineSegments(geo, new LineBasicMaterial({ color: 0x4fc3f7, transparent: true, opacity: 0.7, depthTest: false }));
  lines.frustumCulled = false;
  lines.renderOrder = 10;
  let v = 0;
  const put = (x: number, y: number, z: number): void => { pos[v++] = x; pos[v++] = y; pos[v++] = z; };
  /** Ring round (cx, cy, cz) of radius r in the plane of unit axes u, w. */
  const ring = (c: number[], r: number, u: number[], w: number[]): void => {
    for (let k = 0; k < SEGS; k++) {
      for (const j of [k, k + 1]) {
        const t = (2 * Math.PI * j) / SEGS, cs = Math.cos(t) * r, sn = Math.sin(t) * r;
        put(c[0]! + cs * u[0]! + sn * w[0]!, c[1]! + cs * u[1]! + sn * w[1]!, c[2]! + cs * u[2]! + sn * w[2]!);
      }
    }
  };
  return {
    lines,
    update(a) {
      v = 0;
      const list = a ? a.colliders.slice(0, MAX) : [];
      for (const c of list) {
        const s = a!.world.components.TailCollider.shapeCur, o = c * SHAPE_STRIDE, r = s[o + 6]!;
        if (!(r > 0)) continue;
        const A = [s[o]!, s[o + 1]!, s[o + 2]!], B = [s[o + 3]!, s[o + 4]!, s[o + 5]!];
        let ax = [B[0]! - A[0]!, B[1]! - A[1]!, B[2]! - A[2]!];
        const l = Math.hypot(ax[0]!, ax[1]!, ax[2]!);
        ax = l > 1e-9 ? ax.map((x) => x / l) : [0, 1, 0];
        // two unit axes across the capsule's
        const ref = Math.abs(ax[1]!) < 0.9 ? [0, 1, 0] : [1, 0, 0];
        let u = [ax[1]! * ref[2]! - ax[2]! * ref[1]!, ax[2]! * ref[0]! - ax[0]! * ref[2]!, ax[0]! * ref[1]! - ax[1]! * ref[0]!];
        const ul = Math.hypot(u[0]!, u[1]!, u[2]!); u = u.map((x) => x / ul);
        const w = [ax[1]! * u[2]! - ax[2]! * u[1]!, ax[2]! * u[0]! - ax[0]! * u[2]!, ax[0]! * u[1]! - ax[1]! * u[0]!];
        for (const e of [A, B]) { ring(e, r, u, w); ring(e, r, u, ax); ring(e, r, w, ax); }
        for (const [p, q] of [[u, 1], [u, -1], [w, 1], [w, -1]] as const) {
          put(A[0]! + q * r * p[0]!, A[1]! + q * r * p[1]!, A[2]! + q * r * p[2]!);
          put(B[0]! + q * r * p[0]!, B[1]! + q * r * p[1]!, B[2]! + q * r * p[2]!);
        }
      }
      geo.setDrawRange(0, v / 3);
      (geo.getAttribute('position') as BufferAttribute).needsUpdate = true;
      lines.visible = v > 0;
    },
  };
}
