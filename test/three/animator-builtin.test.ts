/**
 * The three.js adapter on the built-in character (no external files needed).
 */
import { linkEl } from '../../core/components/tail';
import { describe, expect, test } from 'vitest';
import { AnimationMixer, Euler, Quaternion, QuaternionKeyframeTrack, Vector3, type Bone } from 'three';
import { tailLinkIndex } from '../../core/tailSetup';
import { createAnimator, characterToThree, updateAnimators } from '../../adapters/three';
import { createBuiltinCharacter } from '../../core/character';
import { createBitrigWorld } from '../../runtime/world';

function rig(variant: 'chain' | 'shin' = 'chain') {
  const data = createBuiltinCharacter({ variant });
  const t = characterToThree(data);
  const mixer = new AnimationMixer(t.root);
  return { data, ...t, mixer };
}

describe('createAnimator on the built-in character', () => {
  test('finds the Tail_1…Tail_6 chain under Hips with no extra code, bind rest source', () => {
    const a = rig();
    const animator = createAnimator(a.root, { mixer: a.mixer });
    const d = animator.diagnostics();
    expect(d.tails.map((t) => t.bones)).toEqual([['Tail_1', 'Tail_2', 'Tail_3', 'Tail_4', 'Tail_5', 'Tail_6']]);
    a.mixer.clipAction(a.clips.find((c) => c.name === 'walk')!).play();
    for (let f = 0; f < 10; f++) animator.update(1 / 60);
    expect(animator.diagnostics().tails[0]!.restSource).toBe('bind'); // no clip keys the tail
    expect(d.unitScale).toBe(1);
    animator.dispose();
  });

  test('crouch: the tail rests on the floor; hips and feet equal the mixer output exactly; tail bone lengths kept (1e-6 m)', () => {
    const ref = rig();
    const sim = rig();
    const refAction = ref.mixer.clipAction(ref.clips.find((c) => c.name === 'crouch')!);
    refAction.play();
    sim.mixer.clipAction(sim.clips.find((c) => c.name === 'crouch')!).play();
    // A limp tail (full gravity, no carry, the modelled droop kept): the crouch pitches the
    // hips forward, so a tail with muscle (defaults) stays off the floor on this character.
    const animator = createAnimator(sim.root, { mixer: sim.mixer, tail: { gravity: 9.8, carry: 0, restCurve: 1 } });
    const names = ['Hips', 'LeftFoot', 'RightFoot', 'LeftToeBase', 'RightToeBase', 'LeftLeg', 'Spine'];
    const byName = (bones: Bone[], n: string) => bones.find((b) => b.name === n)!;
    const tails = sim.bones.filter((b) => b.name.startsWith('Tail_'));
    const restLen: number[] = [];
    sim.root.updateMatrixWorld(true);
    for (let i = 0; i + 1 < tails.length; i++) restLen.push(tails[i]!.getWorldPosition(new Vector3()).distanceTo(tails[i + 1]!.getWorldPosition(new Vector3())));
    let contact = false;
    for (let f = 0; f < 120; f++) {
      ref.mixer.update(1 / 60);
      animator.update(1 / 60);
      for (const n of names) {
        const a = byName(ref.bones, n), b = byName(sim.bones, n);
        expect(b.quaternion.equals(a.quaternion)).toBe(true);
        expect(b.position.equals(a.position)).toBe(true);
      }
      if (animator.diagnostics().tails[0]!.contacts.some((c) => c)) contact = true;
      sim.root.updateMatrixWorld(true);
      for (let i = 0; i + 1 < tails.length; i++) {
        const l = tails[i]!.getWorldPosition(new Vector3()).distanceTo(tails[i + 1]!.getWorldPosition(new Vector3()));
        expect(Math.abs(l - restLen[i]!)).toBeLessThan(1e-6);
      }
      for (const t of tails) {
        // every tail joint above the floor plane (y = 0) by the clearance, to 1e-6
        if (t.name !== 'Tail_1') expect(t.getWorldPosition(new Vector3()).y).toBeGreaterThan(0.025 - 1e-6);
      }
    }
    expect(contact).toBe(true);
  });

  test('a clip that holds a tail key still rides on the clip: the rest equals the key every frame (1e-7: keys are float32), auto picks animation', () => {
    const a = rig();
    const walk = a.clips.find((c) => c.name === 'walk')!.clone();
    // Tail_1 held at a constant rotation (two equal keys): three's mixer writes it once, then
    // skips it as unchanged — the bone would keep bitrig's output unless the animator restores.
    const held = new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), 0.4).multiply(a.bones.find((b) => b.name === 'Tail_1')!.quaternion.clone());
    walk.tracks.push(new QuaternionKeyframeTrack('Tail_1.quaternion', [0, walk.duration], [...held.toArray(), ...held.toArray()]));
    a.mixer.clipAction(walk).play();
    const animator = createAnimator(a.root, { mixer: a.mixer });
    const B = animator.world.components.BendState;
    const eid = animator.bindings[0]!.tails[0]!.eid;
    for (let f = 0; f < 90; f++) {
      animator.update(1 / 60);
      const r0 = tailLinkIndex(animator.world, eid, 0);
      const r = [0, 1, 2, 3].map((c) => B.restR[linkEl(r0, 4, c)]!);
      const h = held.toArray();
      for (let j = 0; j < 4; j++) expect(Math.abs(r[j]! - h[j]!)).toBeLessThan(1e-7);
    }
    expect(animator.diagnostics().tails[0]!.restSource).toBe('animation');
    // the spring does move the bone away from the held key (it is not frozen on the clip)
    expect(a.bones.find((b) => b.name === 'Tail_1')!.quaternion.angleTo(held)).toBeGreaterThan(1e-4);
  });

  // Switch frame, before the twist was kept (the seat put the new rest's twist on every link:
  // each bone's direction in its parent's frame stayed, the parent frames turned): bone world
  // directions turned up to 5.6° / 11.5° / 17.4° (tip moved 39 / 80 / 114 mm) with the floor
  // off; with it on, the links that landed under the floor were re-aimed: 0° / 6.7° / 27.9° in
  // the parent frame on Tail_5, 25° more the frame after. Now: 0.0° in the parent frame, at
  // most 0.6° in the world (walking itself turns them up to 2.8° a frame).
  test.each([
    [false, 0.4], [false, 0.8], [false, 1.2], [true, 0.4], [true, 0.8], [true, 1.2],
  ])('auto: a clip that keys the tail (floor on: %s, Tail_1 lowered %s rad) stops and one that does not starts — the tail goes on from the pose it showed (the switch frame turns each bone direction < 0.5° in its parent frame and < 1° in the world; re-seating at rest jumped 33–71°), then eases toward the bind rest no faster than a spring released from there (each frame < max(8°, 0.3 × that jump)); floor on: every link tip ≥ F − 1e-9 (Tail_End F − 2e-8), bone lengths kept (1e-6 m)', (floorEnabled, raise) => {
    const a = rig();
    const walk = a.clips.find((c) => c.name === 'walk')!;
    const keyed = walk.clone();
    const rest1 = a.bones.find((b) => b.name === 'Tail_1')!.quaternion.clone();
    const low = new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), -raise).multiply(rest1);
    keyed.tracks.push(new QuaternionKeyframeTrack('Tail_1.quaternion', [0, keyed.duration], [...low.toArray(), ...low.toArray()]));
    const action = a.mixer.clipAction(keyed);
    action.play();
    const animator = createAnimator(a.root, { mixer: a.mixer, tail: { floorEnabled } });
    const tails = a.bones.filter((b) => /^Tail_\d$/.test(b.name));
    const joints = [...tails, tails[tails.length - 1]!.children[0] as Bone]; // Tail_1 … Tail_6 heads, Tail_End
    const worldOf = (): Vector3[] => joints.map((j) => j.getWorldPosition(new Vector3()));
    const worldDirs = (w: Vector3[]): Vector3[] => tails.map((_, i) => w[i + 1]!.clone().sub(w[i]!).normalize());
    const restLen = worldDirs(worldOf()).map((_, i) => (joints[i + 1] as Bone).position.length()); // (unit scales)
    const C = animator.world.components.TailChain, eid = animator.bindings[0]!.tails[0]!.eid;
    const F = C.floorY[eid]! + C.floorClearance[eid]! * C.unitScale[eid]!;
    expect(F).toBeCloseTo(0.025, 12);
    // lowest link tip (Tail_2 … Tail_6 heads, Tail_End), and Tail_End alone: its translation as
    // the engine has it is 1.2e-8 m longer than the tip offset bitrig derives from the inverse
    // bind matrices (float32), so it may sit up to that far under the floor circle the links
    // are aimed at (5.7e-9 m measured, before this fix too, also long after the switch)
    let lowest = Infinity, lowestEnd = Infinity, lengthErr = 0, touched = false;
    const check = (): Vector3[] => {
      const w = worldOf();
      lowestEnd = Math.min(lowestEnd, w[w.length - 1]!.y);
      for (let i = 1; i < w.length; i++) {
        if (i < w.length - 1) lowest = Math.min(lowest, w[i]!.y);
        if (w[i]!.y < F + 1e-3) touched = true;
        lengthErr = Math.max(lengthErr, Math.abs(w[i]!.distanceTo(w[i - 1]!) - restLen[i - 1]!));
      }
      return w;
    };
    for (let f = 0; f < 60; f++) { animator.update(1 / 60); check(); }
    expect(animator.diagnostics().tails[0]!.restSource).toBe('animation');
    const shown = tails.map((t) => t.quaternion.clone());
    const shownDirs = worldDirs(worldOf());
    action.stop();
    a.mixer.clipAction(walk).play();
    animator.update(1 / 60);
    expect(animator.diagnostics().tails[0]!.restSource).toBe('bind');
    // each bone's direction (toward its child, in its parent's frame); its twist about that
    // direction is the shown one too, so the parent frames and the world shape stay
    const dirOf = (t: Bone, q: Quaternion): Vector3 => (t.children[0] as Bone).position.clone().normalize().applyQuaternion(q);
    tails.forEach((t, i) => expect(dirOf(t, t.quaternion).angleTo(dirOf(t, shown[i]!)) * 180 / Math.PI, t.name).toBeLessThan(0.5));
    const switchDirs = worldDirs(check());
    tails.forEach((t, i) => expect(switchDirs[i]!.angleTo(shownDirs[i]!) * 180 / Math.PI, `${t.name} world`).toBeLessThan(1));
    // what re-seating at rest jumped: the largest turn from the shown directions to the bind rest's
    const B = animator.world.components.BendState;
    let jump = 0;
    tails.forEach((t, i) => {
      const k = tailLinkIndex(animator.world, eid, i);
      const r = new Quaternion(B.restR[linkEl(k, 4, 0)]!, B.restR[linkEl(k, 4, 1)]!, B.restR[linkEl(k, 4, 2)]!, B.restR[linkEl(k, 4, 3)]!);
      jump = Math.max(jump, dirOf(t, shown[i]!).angleTo(dirOf(t, r)));
    });
    expect(jump * 180 / Math.PI).toBeGreaterThan(30); // the test means something
    let prev = tails.map((t) => t.quaternion.clone()), worst = 0;
    for (let f = 0; f < 120; f++) {
      animator.update(1 / 60);
      check();
      tails.forEach((t, i) => { expect(Number.isFinite(t.quaternion.w)).toBe(true); worst = Math.max(worst, dirOf(t, t.quaternion).angleTo(dirOf(t, prev[i]!))); });
      prev = tails.map((t) => t.quaternion.clone());
    }
    // a spring released from θ0 turns at most ωθ0 per second (ω = 2π · 0.9 Hz), a chain's links
    // up to about twice that: 0.19 θ0 per frame at 60 Hz, bounded here by 0.3 θ0. Measured:
    // 5.4° / 11.7° / 15.5° per frame at 0.4 / 0.8 / 1.2 rad floor off, 4.7° / 9.4° / 14.9° on
    // (jumps 33° / 52° / 71°); without the ease-in (limit clamped, coupling at full rate from
    // the first step) 8.1° / 22.4° / 40.5°
    expect(worst).toBeLessThan(Math.max((8 * Math.PI) / 180, 0.3 * jump));
    if (floorEnabled) {
      expect(touched).toBe(true); // the tail does lie on the floor (the test means something)
      expect(lowest).toBeGreaterThanOrEqual(F - 1e-9);
      expect(lowestEnd).toBeGreaterThanOrEqual(F - 2e-8);
      expect(lengthErr).toBeLessThan(1e-6);
    }
    animator.dispose();
  });

  test('tail physics off shows the carried rest pose: every link bone equals its rest rotation after update (1e-12)', () => {
    const a = rig();
    a.mixer.clipAction(a.clips.find((c) => c.name === 'hipSweep')!).play();
    const animator = createAnimator(a.root, { mixer: a.mixer, tailPhysics: false });
    const B = animator.world.components.BendState;
    const eid = animator.bindings[0]!.tails[0]!.eid;
    const tails = a.bones.filter((b) => /^Tail_\d$/.test(b.name));
    for (let f = 0; f < 60; f++) {
      animator.update(1 / 60);
      tails.forEach((t, i) => {
        const q = t.quaternion.toArray();
        for (let j = 0; j < 4; j++) expect(Math.abs(q[j]! - B.restR[linkEl(tailLinkIndex(animator.world, eid, i), 4, j)]!)).toBeLessThan(1e-7); // (float32 rest)
      });
    }
    animator.setTailPhysics(true);
    for (let f = 0; f < 30; f++) animator.update(1 / 60);
    expect(animator.diagnostics().tails[0]!.bendAngles.some((x) => x > 1e-3)).toBe(true);
  });

  test('tail physics off on a clip that keys the tail shows the clip itself every frame, not a frozen first frame (1e-7: keys are float32)', () => {
    const a = rig();
    const ref = rig();
    const clip = a.clips.find((c) => c.name === 'walk')!.clone();
    // Tail_1 swings ±0.5 rad about X over the clip: a tail the clip animates.
    const base = a.bones.find((b) => b.name === 'Tail_1')!.quaternion.clone();
    const times: number[] = [], values: number[] = [];
    for (let i = 0; i <= 8; i++) {
      const t = (clip.duration * i) / 8;
      times.push(t);
      values.push(...new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), 0.5 * Math.sin((2 * Math.PI * i) / 8)).multiply(base).toArray());
    }
    clip.tracks.push(new QuaternionKeyframeTrack('Tail_1.quaternion', times, values));
    a.mixer.clipAction(clip).play();
    ref.mixer.clipAction(clip.clone()).play();
    const animator = createAnimator(a.root, { mixer: a.mixer, tailPhysics: false, tail: { restSource: 'animation' } });
    const tail = a.bones.find((b) => b.name === 'Tail_1')!;
    const refTail = ref.bones.find((b) => b.name === 'Tail_1')!;
    let moved = 0;
    const first = tail.quaternion.clone();
    for (let f = 0; f < 40; f++) {
      animator.update(1 / 60);
      ref.mixer.update(1 / 60);
      // bitrig shows the clip's own tail pose (the rest of an 'animation' chain) as it is now
      // (component-wise: the mixer's blend is not exactly unit, bitrig's rest is normalised,
      // and angleTo reads a norm difference of 1e-10 as 2e-5 rad)
      const q = tail.quaternion.toArray(), r = refTail.quaternion.toArray();
      const sign = q[0]! * r[0]! + q[1]! * r[1]! + q[2]! * r[2]! + q[3]! * r[3]! < 0 ? -1 : 1;
      for (let j = 0; j < 4; j++) expect(Math.abs(q[j]! - sign * r[j]!)).toBeLessThan(1e-7);
      moved = Math.max(moved, tail.quaternion.angleTo(first));
    }
    expect(moved).toBeGreaterThan(0.1); // the shown tail follows the clip (fails when frozen)
    animator.dispose();
  });

  test('reset() replays exactly: after setTime(0) and reset, 90 frames with tail and scene IK repeat bit for bit', () => {
    const a = rig();
    a.mixer.clipAction(a.clips.find((c) => c.name === 'walk')!).play();
    const animator = createAnimator(a.root, { mixer: a.mixer, sceneIK: true });
    const run = (): number[] => {
      const out: number[] = [];
      for (let f = 0; f < 90; f++) {
        const w = f % 40 < 20 ? 1 : 0; // alternate planted feet: locks record and release
        animator.update(1 / 60, { feet: [w, 1 - w], grounded: true });
        for (const b of a.bones) out.push(...b.quaternion.toArray(), ...b.position.toArray());
      }
      return out;
    };
    const first = run();
    const changed = run(); // continuing, not replaying: differs
    expect(changed).not.toEqual(first);
    animator.restoreAnimatedPose();
    a.mixer.setTime(0);
    animator.reset();
    const replay = run();
    expect(replay.length).toBe(first.length);
    let diff = 0;
    for (let i = 0; i < first.length; i++) if (replay[i] !== first[i]) diff++;
    expect(diff).toBe(0);
    animator.dispose();
  });

  test.each([0, 0.7])('a mirrored model (root scale.x = −1, turned %f rad) swings the mirror image of the tail: tail joints equal the reflected original (1e-6 m)', (turn) => {
    const a = rig(), m = rig();
    m.root.scale.x = -1; // the left/right variant trick
    // P·R_y(−θ) = R_y(θ)·P: the mirrored model turned θ is the reflection of the original turned −θ
    m.root.rotation.y = turn;
    a.root.rotation.y = -turn;
    for (const r of [a, m]) r.mixer.clipAction(r.clips.find((c) => c.name === 'hipSweep')!).play();
    const an = createAnimator(a.root, { mixer: a.mixer });
    const mn = createAnimator(m.root, { mixer: m.mixer });
    const tails = (r: typeof a) => r.bones.filter((b) => /^Tail_/.test(b.name));
    const p = new Vector3(), q = new Vector3();
    let worst = 0, swing = 0;
    for (let f = 0; f < 120; f++) {
      an.update(1 / 60);
      mn.update(1 / 60);
      a.root.updateMatrixWorld(true);
      m.root.updateMatrixWorld(true);
      const ta = tails(a), tm = tails(m);
      ta.forEach((b, i) => {
        b.getWorldPosition(p);
        tm[i]!.getWorldPosition(q);
        worst = Math.max(worst, Math.abs(p.x + q.x), Math.abs(p.y - q.y), Math.abs(p.z - q.z));
      });
      swing = Math.max(swing, Math.abs(ta[ta.length - 1]!.getWorldPosition(p).x));
    }
    expect(swing).toBeGreaterThan(0.05); // the sweep does swing the tail sideways
    expect(worst).toBeLessThan(1e-6);
    an.dispose(); mn.dispose();
  });

  test('the shin variant (no tail bones) binds with no chain and changes nothing', () => {
    const a = rig('shin');
    const animator = createAnimator(a.root, { mixer: a.mixer });
    expect(animator.diagnostics().tails.length).toBe(0);
    animator.update(1 / 60);
    animator.dispose();
  });

  test('a shared world runs many animators with one pipeline run; each matches its own private run (1e-12)', () => {
    const world = createBitrigWorld();
    const group = [rig(), rig(), rig()];
    const solo = [rig(), rig(), rig()];
    const shared = group.map((g) => createAnimator(g.root, { world, mixer: g.mixer }));
    const own = solo.map((g) => createAnimator(g.root, { mixer: g.mixer }));
    group.forEach((g, i) => g.mixer.clipAction(g.clips[i]!).play());
    solo.forEach((g, i) => g.mixer.clipAction(g.clips[i]!).play());
    expect(() => shared[0]!.update(1 / 60)).toThrow(/shares its world with others/);
    for (let f = 0; f < 60; f++) {
      updateAnimators(shared, 1 / 60);
      for (const o of own) o.update(1 / 60);
    }
    for (let i = 0; i < 3; i++) {
      const a = group[i]!.bones.filter((b) => b.name.startsWith('Tail_'));
      const b = solo[i]!.bones.filter((b) => b.name.startsWith('Tail_'));
      for (let k = 0; k < a.length; k++) {
        const qa = a[k]!.quaternion.toArray(), qb = b[k]!.quaternion.toArray();
        for (let j = 0; j < 4; j++) expect(Math.abs(qa[j]! - qb[j]!)).toBeLessThan(1e-12);
      }
    }
  });

  test('dispose releases the pose slots: 1,000 bind/dispose cycles do not grow the store', () => {
    const world = createBitrigWorld();
    const a = rig();
    createAnimator(a.root, { world }).dispose();
    const cap = world.pose.capacity;
    const ents = world.capacity;
    for (let i = 0; i < 1000; i++) createAnimator(a.root, { world }).dispose();
    expect(world.pose.capacity).toBe(cap);
    expect(world.capacity).toBe(ents);
  });

  test('bad input: an object without a skinned mesh is a clear setup error', () => {
    const a = rig();
    expect(() => createAnimator(a.bones[0]!)).toThrow(/bitrig\/three: no SkinnedMesh/);
  });

  test('bad setup calls name the problem and the module (review 22): no object, a non-world, a non-mixer, option typos, strings for numbers and booleans, a per-chain key or setTailOptions chain that names no chain', () => {
    const a = rig();
    const bad: Array<[() => unknown, RegExp]> = [
      [() => createAnimator(null as never), /^bitrig\/three: createAnimator needs a three.js Object3D/],
      [() => createAnimator(a.root, { world: {} as never }), /^bitrig\/three: options.world must be a world bitrig is attached to \(attachBitrig\(world\), or createBitrigWorld\(\)\), got a world bitrig is not attached to/],
      [() => createAnimator(a.root, { mixer: {} as never }), /^bitrig\/three: options.mixer must be a THREE.AnimationMixer, got an object/],
      [() => createAnimator(a.root, { tailChains: 'Tail_1' as never }), /^bitrig\/bind: tailChains must be an array of chains/],
      [() => createAnimator(a.root, { unitScale: 'cm' as never }), /^bitrig\/three: unitScale must be a positive number or 'auto', got "cm"/],
      [() => createAnimator(a.root, { tailPhysics: 'no' as never }), /^bitrig\/three: options.tailPhysics must be true or false/],
      [() => createAnimator(a.root, { tail: { floorEnabled: 'false' as never } }), /^bitrig\/tail: option floorEnabled must be true or false, got "false" \(a string\)/],
      [() => createAnimator(a.root, { tail: { restCurve: '0.5' as never } }), /^bitrig\/tail: option restCurve must be a number in \[0, 1\]/],
      [() => createAnimator(a.root, { tail: { frequency: '2' as never } }), /^bitrig\/tail: option frequency must be a number in \(0, 30\] Hz, got "2" \(a string\)/],
      [() => createAnimator(a.root, { tail: { frequncy: 2 } as never }), /^bitrig\/tail: unknown option "frequncy" \(did you mean "frequency"\?\); options: frequency,/],
      [() => createAnimator(a.root, { tails: { TailOne: { carry: 0.2 } } }), /^bitrig\/three: options.tails\["TailOne"\] names no tail chain \(chains, by first bone: Tail_1\)/],
      [() => createBitrigWorld({ chains: '8' as never }), /^bitrig\/world: chains must be an integer/],
      [() => createAnimator(a.root, { mixr: a.mixer } as never), /^bitrig\/three: unknown option "mixr" \(did you mean "mixer"\?\)/],
      [() => createAnimator(a.root, { carry: 0.5 } as never), /^bitrig\/three: .*"carry" belongs under tail/],
      [() => createAnimator(a.root, { sceneIK: 1 as never }), /^bitrig\/three: options.sceneIK must be true, false or an object/],
      [() => createAnimator(a.root, { updateMixer: 'false' as never }), /^bitrig\/three: options.updateMixer must be true or false, got "false" \(a string\)/],
    ];
    for (const [f, msg] of bad) expect(f).toThrow(msg);
    // an option given as undefined is the default (options forwarded as { chains: flags.chains })
    expect(createBitrigWorld({ chains: undefined }).tailAccel).not.toBeNull();
    expect(() => createAnimator(rig().root, { tailPhysics: undefined, unitScale: undefined, world: undefined }).dispose()).not.toThrow();
    expect(() => createAnimator(rig().root, { mixer: null as never }).dispose()).not.toThrow(); // null: no mixer
    const an = createAnimator(a.root, { tails: { Tail_1: { carry: 0.2 } } });
    expect(() => an.setTailOptions({ carry: 0.3 }, 'Nope')).toThrow(/^bitrig\/three: setTailOptions: no tail chain starts at "Nope" \(chains: Tail_1\)/);
    expect(() => an.setTailOptions({ carry: 0.3 }, 'Tail_1')).not.toThrow();
  });

  test('a character without tail bones (the shin variant: the auto-rigger gave the tail to a leg) and no scene IK: diagnostics say the animator drives nothing and how to fix it; with scene IK or a chain, no such note', () => {
    const none = createAnimator(rig('shin').root);
    const p = none.diagnostics().problems;
    expect(none.diagnostics().tails).toEqual([]);
    expect(p.some((m) => /no tail chain found/.test(m) && /npx bitrig rig/.test(m) && /sceneIK: true/.test(m))).toBe(true);
    none.dispose();
    const ik = createAnimator(rig('shin').root, { sceneIK: true });
    expect(ik.diagnostics().problems.some((m) => /no tail chain found/.test(m))).toBe(false);
    ik.dispose();
    const tail = createAnimator(rig('chain').root);
    expect(tail.diagnostics().problems.some((m) => /no tail chain found/.test(m))).toBe(false);
    tail.dispose();
  });

  test('a dt in milliseconds (update(16) three frames in a row) is reported in diagnostics().problems, alone or through updateAnimators; one long frame (a hitch, a tab switch) or a dt in seconds is not', () => {
    const a = rig();
    const an = createAnimator(a.root, { mixer: a.mixer });
    const noted = (): boolean => an.diagnostics().problems.some((m) => /dt is in seconds/.test(m));
    an.update(1 / 60);
    expect(noted()).toBe(false);
    an.update(45); // a tab switch
    an.update(1 / 60);
    expect(noted()).toBe(false);
    for (let f = 0; f < 3; f++) an.update(16);
    expect(an.diagnostics().problems.some((m) => /dt over 1 s 3 frames in a row \(last 16 s\): dt is in seconds/.test(m))).toBe(true);
    an.update(1 / 60);
    expect(noted()).toBe(false);
    for (let f = 0; f < 3; f++) updateAnimators([an], 33);
    expect(an.diagnostics().problems.some((m) => /last 33 s/.test(m))).toBe(true);
    an.dispose();
  });

  test('a field given as undefined inside tail or sceneIK keeps the animator\'s value (unitScale 100 stays 100, the skin sole stays), as everywhere', () => {
    const an = createAnimator(rig().root, { unitScale: 100, tail: { unitScale: undefined, carry: 0.5 }, sceneIK: { unitScale: undefined, skin: undefined } });
    expect(an.diagnostics().tails.map((t) => t.unitScale)).toEqual([100]);
    expect(an.world.components.SceneCharacter.unitScale[an.sceneIK!.eid]).toBe(100);
    const scene = an.diagnostics().scene!;
    expect(scene.contacts.every((c) => c.sole === 'skin')).toBe(true); // the skin sole, as with no sceneIK fields given
    an.dispose();
  });

  test('diagnostics report each chain\'s own unitScale (a per-chain override), the animator\'s beside it', () => {
    const a = rig();
    const plain = createAnimator(a.root, { unitScale: 2 });
    expect(plain.diagnostics().unitScale).toBe(2);
    expect(plain.diagnostics().tails.map((t) => t.unitScale)).toEqual([2]);
    plain.dispose();
    const own = createAnimator(rig().root, { unitScale: 2, tails: { Tail_1: { unitScale: 100 } } });
    expect(own.diagnostics().unitScale).toBe(2);
    expect(own.diagnostics().tails.map((t) => t.unitScale)).toEqual([100]);
    own.dispose();
  });

  test('a world passed in with one animator on it: update() steps it (as a private world would, 1e-12); disposed, diagnostics report nothing of ids since reused', () => {
    const x = rig(), y = rig();
    for (const r of [x, y]) r.mixer.clipAction(r.clips[0]!).play();
    const ax = createAnimator(x.root, { world: createBitrigWorld(), mixer: x.mixer }), ay = createAnimator(y.root, { mixer: y.mixer });
    for (let f = 0; f < 30; f++) { ax.update(1 / 60); ay.update(1 / 60); }
    const tx = x.bones.filter((b) => b.name.startsWith('Tail_')), ty = y.bones.filter((b) => b.name.startsWith('Tail_'));
    for (let k = 0; k < tx.length; k++) for (let j = 0; j < 4; j++) expect(Math.abs(tx[k]!.quaternion.toArray()[j]! - ty[k]!.quaternion.toArray()[j]!)).toBeLessThan(1e-12);
    ax.dispose();
    const d = ax.diagnostics();
    expect(d.tails).toEqual([]);
    expect(d.scene).toBeUndefined();
  });

  test('bones bitrig writes keep their Euler rotation in step with the quaternion (the write sets three\'s quaternion fields, then its change callback): 1e-12 rad, tail and scene IK bones', () => {
    const a = rig();
    a.mixer.clipAction(a.clips.find((c) => c.name === 'walk')!).play();
    const animator = createAnimator(a.root, { mixer: a.mixer, sceneIK: true });
    const names = ['Tail_1', 'Tail_6', 'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'RightLeg'];
    const e = new Euler();
    let checked = 0;
    for (let f = 0; f < 30; f++) {
      animator.update(1 / 60, { feet: [1, 0.5], grounded: true });
      for (const n of names) {
        const b = a.bones.find((x) => x.name === n)!;
        expect(Math.abs(b.quaternion.length() - 1)).toBeLessThan(1e-9);
        e.setFromQuaternion(b.quaternion, b.rotation.order);
        expect(Math.abs(e.x - b.rotation.x) + Math.abs(e.y - b.rotation.y) + Math.abs(e.z - b.rotation.z)).toBeLessThan(1e-12);
        checked++;
      }
    }
    expect(checked).toBe(180);
    animator.dispose();
  });
});
