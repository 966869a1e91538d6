/**
 * Scene page overlays: foot contacts (discs on the ground, green when locked, amber while
 * only partly planted), the centre of mass (ball, drop line) over the support centroid
 * (ring), and pelvis trails for both copies.
 */
import {
  BufferAttribute, BufferGeometry, CircleGeometry, Group, Line, LineBasicMaterial, Mesh, MeshBasicMaterial,
  RingGeometry, SphereGeometry, Vector3, DoubleSide,
} from 'three';
import type { SceneDiagnostics } from '../../core/sceneIK';
import { LAYER_BASE, LAYER_CORRECTED } from './scenarios';

const TRAIL = 360;

/** Which overlays are drawn. */
export interface OverlayToggles {
  /** Foot contacts. */
  contacts: boolean;
  /** Centre of mass and support centroid. */
  com: boolean;
  /** Pelvis trails. */
  trail: boolean;
}

/** The overlay objects. */
export interface Overlays {
  /** Root group (add to the scene). */
  group: Group;
  /** Refresh contacts and COM from the corrected copy's diagnostics (null hides them). */
  update(d: SceneDiagnostics | null): void;
  /** Append a pelvis position to a trail. */
  pushTrail(which: 'base' | 'corrected', p: Vector3): void;
  /** Clear both trails. */
  resetTrails(): void;
  /** Show or hide groups. */
  setVisible(t: OverlayToggles): void;
}

function layered<T extends { layers: { set(l: number): void } }>(o: T, layer: number): T {
  o.layers.set(layer);
  return o;
}

function makeTrail(color: number, layer: number): { line: Line; pos: Float32Array; n: number } {
  const pos = new Float32Array(TRAIL * 3);
  const g = new BufferGeometry();
  g.setAttribute('position', new BufferAttribute(pos, 3));
  g.setDrawRange(0, 0);
  const line = layered(new Line(g, new LineBasicMaterial({ color, depthTest: false, transparent: true, opacity: 0.9 })), layer);
  line.frustumCulled = false;
  line.renderOrder = 8;
  return { line, pos, n: 0 };
}

/**
 * Build the overlays.
 *
 * @example
 * const ov = createOverlays(); scene.add(ov.group);
 */
export function createOverlays(): Overlays {
  const group = new Group();
  const contacts = new Group();
  const com = new Group();
  const trails = new Group();
  group.add(contacts, com, trails);

  const discGeo = new RingGeometry(0.03, 0.05, 24);
  discGeo.rotateX(-Math.PI / 2);
  const dotGeo = new CircleGeometry(0.012, 12);
  dotGeo.rotateX(-Math.PI / 2);
  const feet = [0, 1].map(() => {
    const mat = new MeshBasicMaterial({ color: 0x6ad38b, transparent: true, opacity: 0.9, depthTest: false, side: DoubleSide });
    const disc = layered(new Mesh(discGeo, mat), LAYER_CORRECTED);
    const dot = layered(new Mesh(dotGeo, new MeshBasicMaterial({ color: 0xffffff, depthTest: false, side: DoubleSide })), LAYER_CORRECTED);
    disc.renderOrder = dot.renderOrder = 9;
    contacts.add(disc, dot);
    return { disc, dot, mat };
  });

  const ball = layered(new Mesh(new SphereGeometry(0.02, 16, 10), new MeshBasicMaterial({ color: 0xffd84a, depthTest: false })), LAYER_CORRECTED);
  ball.renderOrder = 9;
  const dropGeo = new BufferGeometry();
  dropGeo.setAttribute('position', new BufferAttribute(new Float32Array(6), 3));
  const drop = layered(new Line(dropGeo, new LineBasicMaterial({ color: 0xffd84a, depthTest: false })), LAYER_CORRECTED);
  drop.frustumCulled = false;
  drop.renderOrder = 9;
  const ringGeo = new RingGeometry(0.035, 0.045, 28);
  ringGeo.rotateX(-Math.PI / 2);
  const ring = layered(new Mesh(ringGeo, new MeshBasicMaterial({ color: 0x4ad8ff, depthTest: false, side: DoubleSide })), LAYER_CORRECTED);
  ring.renderOrder = 9;
  com.add(ball, drop, ring);

  const tBase = makeTrail(0x9aa4b4, LAYER_BASE);
  const tCorr = makeTrail(0xf0a050, LAYER_CORRECTED);
  trails.add(tBase.line, tCorr.line);

  const up = new Vector3(0, 1, 0), n = new Vector3();
  return {
    group,
    update(d) {
      if (!d) { contacts.visible = false; com.visible = false; return; }
      d.contacts.forEach((c, i) => {
        const f = feet[i];
        if (!f) return;
        const on = c.stance > 0.02;
        f.disc.visible = on;
        f.dot.visible = on;
        f.disc.position.set(c.pointWs[0], c.pointWs[1] + 0.003, c.pointWs[2]);
        n.set(c.normalWs[0], c.normalWs[1], c.normalWs[2]);
        if (n.lengthSq() > 0.5) f.disc.quaternion.setFromUnitVectors(up, n.normalize());
        f.mat.color.setHex(c.locked ? 0x6ad38b : 0xf0b040);
        f.disc.scale.setScalar(0.5 + 0.5 * c.stance);
        f.dot.position.set(c.soleWs[0], c.soleWs[1] + 0.004, c.soleWs[2]);
      });
      ball.position.set(d.comWs[0], d.comWs[1], d.comWs[2]);
      ring.position.set(d.supportWs[0], d.supportWs[1] + 0.004, d.supportWs[2]);
      const a = dropGeo.getAttribute('position') as BufferAttribute;
      a.setXYZ(0, d.comWs[0], d.comWs[1], d.comWs[2]);
      a.setXYZ(1, d.comWs[0], d.supportWs[1], d.comWs[2]);
      a.needsUpdate = true;
    },
    pushTrail(which, p) {
      const t = which === 'base' ? tBase : tCorr;
      if (t.n === TRAIL) t.pos.copyWithin(0, 3);
      else t.n++;
      t.pos[(t.n - 1) * 3] = p.x; t.pos[(t.n - 1) * 3 + 1] = p.y; t.pos[(t.n - 1) * 3 + 2] = p.z;
      const g = t.line.geometry;
      (g.getAttribute('position') as BufferAttribute).needsUpdate = true;
      g.setDrawRange(0, t.n);
    },
    resetTrails() {
      for (const t of [tBase, tCorr]) { t.n = 0; t.line.geometry.setDrawRange(0, 0); }
    },
    setVisible(v) {
      contacts.visible = v.contacts;
      com.visible = v.com;
      trails.visible = v.trail;
    },
  };
}
