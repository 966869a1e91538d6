/**
 * Limb finding: legs and arms in Mixamo, plain, `.L/.R` and `b_Name_NN` skeletons;
 * quadrupeds have four legs (the Khronos fox's front legs are named arms; the Quaternius
 * animals' paws hang from IK controllers). Synthetic name lists first, then the real files.
 */
import { describe, expect, test } from 'vitest';
import { mat4 } from 'gl-matrix';
import { findLimbs, type LimbBones } from '../../core/limbMap';
import { findPelvis } from '../../core/boneMap';
import type { SkeletonTopology } from '../../core/boneMap';
import { hasAsset, loadAsset, warnIfNoAssets, type AssetName } from '../fixtures/assets';

function topo(spec: [string, string | null][]): SkeletonTopology {
  const names = spec.map((s) => s[0]);
  return { names, parents: spec.map((s) => (s[1] === null ? -1 : names.indexOf(s[1]))) };
}

function describeLimbs(t: SkeletonTopology, limbs: LimbBones[]): string[] {
  return limbs.map((l) => `${l.kind}${l.front ? '(front)' : ''} ${l.side}: ${t.names[l.root]} > ${t.names[l.mid]} > ${t.names[l.end]}${l.endIsDescendant ? '' : ' (ik end)'}`);
}

describe('name styles', () => {
  test('Mixamo', () => {
    const sides = (s: string): [string, string | null][] => [
      [`mixamorig:${s}UpLeg`, 'mixamorig:Hips'], [`mixamorig:${s}Leg`, `mixamorig:${s}UpLeg`], [`mixamorig:${s}Foot`, `mixamorig:${s}Leg`],
      [`mixamorig:${s}ToeBase`, `mixamorig:${s}Foot`], [`mixamorig:${s}Shoulder`, 'mixamorig:Spine2'], [`mixamorig:${s}Arm`, `mixamorig:${s}Shoulder`],
      [`mixamorig:${s}ForeArm`, `mixamorig:${s}Arm`], [`mixamorig:${s}Hand`, `mixamorig:${s}ForeArm`], [`mixamorig:${s}HandThumb1`, `mixamorig:${s}Hand`],
    ];
    const t = topo([['mixamorig:Hips', null], ['mixamorig:Spine', 'mixamorig:Hips'], ['mixamorig:Spine2', 'mixamorig:Spine'], ...sides('Left'), ...sides('Right')]);
    const limbs = findLimbs(t);
    expect(describeLimbs(t, limbs)).toEqual([
      'leg left: mixamorig:LeftUpLeg > mixamorig:LeftLeg > mixamorig:LeftFoot',
      'leg right: mixamorig:RightUpLeg > mixamorig:RightLeg > mixamorig:RightFoot',
      'arm left: mixamorig:LeftArm > mixamorig:LeftForeArm > mixamorig:LeftHand',
      'arm right: mixamorig:RightArm > mixamorig:RightForeArm > mixamorig:RightHand',
    ]);
    expect(limbs[0]!.endBones.map((i) => t.names[i])).toEqual(['mixamorig:LeftFoot', 'mixamorig:LeftToeBase']);
  });

  test('plain names with L_/R_ and _l/_r sides', () => {
    const t = topo([
      ['pelvis', null], ['L_Thigh', 'pelvis'], ['L_Calf', 'L_Thigh'], ['L_Foot', 'L_Calf'], ['thigh_r', 'pelvis'], ['calf_r', 'thigh_r'], ['foot_r', 'calf_r'],
      ['spine', 'pelvis'], ['upperarm_l', 'spine'], ['lowerarm_l', 'upperarm_l'], ['hand_l', 'lowerarm_l'],
    ]);
    expect(describeLimbs(t, findLimbs(t))).toEqual([
      'leg left: L_Thigh > L_Calf > L_Foot', 'leg right: thigh_r > calf_r > foot_r', 'arm left: upperarm_l > lowerarm_l > hand_l',
    ]);
  });

  test('Blender .L/.R (Rigify-like), with an IK-layout foot hanging from the root (RobotExpressive)', () => {
    const t = topo([
      ['Bone', null], ['Foot.L', 'Bone'], ['Body', 'Bone'], ['Hips', 'Body'], ['UpperLeg.L', 'Hips'], ['LowerLeg.L', 'UpperLeg.L'],
      ['UpperLeg.R', 'Hips'], ['LowerLeg.R', 'UpperLeg.R'], ['Foot.R', 'Bone'], ['PoleTarget.L', 'Bone'],
    ]);
    expect(describeLimbs(t, findLimbs(t))).toEqual([
      'leg left: UpperLeg.L > LowerLeg.L > Foot.L (ik end)', 'leg right: UpperLeg.R > LowerLeg.R > Foot.R (ik end)',
    ]);
  });

  test('Khronos b_Name_NN with bind positions: the fox is a quadruped, its arms are front legs', () => {
    const t = topo([
      ['_rootJoint', null], ['b_Root_00', '_rootJoint'], ['b_Hip_01', 'b_Root_00'], ['b_Spine01_02', 'b_Hip_01'], ['b_Spine02_03', 'b_Spine01_02'],
      ['b_RightUpperArm_06', 'b_Spine02_03'], ['b_RightForeArm_07', 'b_RightUpperArm_06'], ['b_RightHand_08', 'b_RightForeArm_07'],
      ['b_LeftUpperArm_09', 'b_Spine02_03'], ['b_LeftForeArm_010', 'b_LeftUpperArm_09'], ['b_LeftHand_011', 'b_LeftForeArm_010'],
      ['b_Tail01_012', 'b_Hip_01'], ['b_LeftLeg01_015', 'b_Hip_01'], ['b_LeftLeg02_016', 'b_LeftLeg01_015'], ['b_LeftFoot01_017', 'b_LeftLeg02_016'],
      ['b_LeftFoot02_018', 'b_LeftFoot01_017'], ['b_RightLeg01_019', 'b_Hip_01'], ['b_RightLeg02_020', 'b_RightLeg01_019'],
      ['b_RightFoot01_021', 'b_RightLeg02_020'], ['b_RightFoot02_022', 'b_RightFoot01_021'],
    ]);
    const y: Record<string, number> = { _rootJoint: 0, b_Root_00: 0, b_Hip_01: 43, b_Spine01_02: 55, b_Spine02_03: 54, b_Tail01_012: 45 };
    const pos = new Float64Array(t.names.length * 3);
    t.names.forEach((n, i) => {
      pos[i * 3 + 1] = y[n] ?? (/UpperArm/.test(n) ? 49 : /ForeArm/.test(n) ? 26 : /Hand/.test(n) ? 6.7 : /Leg01/.test(n) ? 49 : /Leg02/.test(n) ? 30 : /Foot01/.test(n) ? 16 : 1);
      pos[i * 3] = /Left/.test(n) ? 7 : /Right/.test(n) ? -7 : 0;
    });
    const limbs = findLimbs(t, pos, 2);
    expect(describeLimbs(t, limbs)).toEqual([
      'leg left: b_LeftLeg01_015 > b_LeftLeg02_016 > b_LeftFoot01_017', 'leg right: b_RightLeg01_019 > b_RightLeg02_020 > b_RightFoot01_021',
      'leg(front) left: b_LeftUpperArm_09 > b_LeftForeArm_010 > b_LeftHand_011', 'leg(front) right: b_RightUpperArm_06 > b_RightForeArm_07 > b_RightHand_08',
    ]);
    // without bind positions the arms stay arms
    expect(findLimbs(t).filter((l) => l.kind === 'arm').length).toBe(2);
    // tail bones are never part of a foot
    expect(limbs[0]!.endBones.map((i) => t.names[i])).toEqual(['b_LeftFoot01_017', 'b_LeftFoot02_018']);
  });
});

describe('names as three.js sanitises them', () => {
  test('Quaternius (IKBackLegL …) and RobotExpressive (FootL …) without the dots, Mixamo without the colon', () => {
    const q = topo([
      ['Body', null], ['Back', 'Body'], ['Torso', 'Back'], ['Torso2', 'Torso'],
      ['FrontShoulderL', 'Torso2'], ['FrontUpperLegL', 'FrontShoulderL'], ['FrontLowerLegL', 'FrontUpperLegL'],
      ['FrontShoulderR', 'Torso2'], ['FrontUpperLegR', 'FrontShoulderR'], ['FrontLowerLegR', 'FrontUpperLegR'],
      ['BackShoulderL', 'Back'], ['BackLegL', 'BackShoulderL'], ['BackUpperLegL', 'BackLegL'], ['BackLowerLegL', 'BackUpperLegL'],
      ['BackShoulderR', 'Back'], ['BackLegR', 'BackShoulderR'], ['BackUpperLegR', 'BackLegR'], ['BackLowerLegR', 'BackUpperLegR'],
      ['Tail1', 'Back'], ['PoleTargetL', 'Body'], ['PoleTargetR', 'Body'],
      ['IKBackLegL', null], ['FFBL', 'IKBackLegL'], ['IKFrontLegL', null], ['FFL', 'IKFrontLegL'],
      ['IKBackLegR', null], ['FFBR', 'IKBackLegR'], ['IKFrontLegR', null], ['FFR', 'IKFrontLegR'],
    ]);
    expect(describeLimbs(q, findLimbs(q))).toEqual([
      'leg left: BackUpperLegL > BackLowerLegL > IKBackLegL (ik end)', 'leg right: BackUpperLegR > BackLowerLegR > IKBackLegR (ik end)',
      'leg(front) left: FrontUpperLegL > FrontLowerLegL > IKFrontLegL (ik end)', 'leg(front) right: FrontUpperLegR > FrontLowerLegR > IKFrontLegR (ik end)',
    ]);
    const r = topo([['Bone', null], ['FootL', 'Bone'], ['Body', 'Bone'], ['Hips', 'Body'], ['UpperLegL', 'Hips'], ['LowerLegL', 'UpperLegL'], ['UpperLegR', 'Hips'], ['LowerLegR', 'UpperLegR'], ['FootR', 'Bone']]);
    expect(describeLimbs(r, findLimbs(r))).toEqual(['leg left: UpperLegL > LowerLegL > FootL (ik end)', 'leg right: UpperLegR > LowerLegR > FootR (ik end)']);
    // Mixamo as three.js loads it: 'mixamorig:LeftHand' arrives as 'mixamorigLeftHand'
    const mixSides = (x: string): [string, string | null][] => [
      [`mixamorig${x}UpLeg`, 'mixamorigHips'], [`mixamorig${x}Leg`, `mixamorig${x}UpLeg`], [`mixamorig${x}Foot`, `mixamorig${x}Leg`],
      [`mixamorig${x}Shoulder`, 'mixamorigSpine2'], [`mixamorig${x}Arm`, `mixamorig${x}Shoulder`], [`mixamorig${x}ForeArm`, `mixamorig${x}Arm`], [`mixamorig${x}Hand`, `mixamorig${x}ForeArm`],
    ];
    const mx = topo([['mixamorigHips', null], ['mixamorigSpine', 'mixamorigHips'], ['mixamorigSpine2', 'mixamorigSpine'], ...mixSides('Left'), ...mixSides('Right')]);
    expect(describeLimbs(mx, findLimbs(mx))).toEqual([
      'leg left: mixamorigLeftUpLeg > mixamorigLeftLeg > mixamorigLeftFoot', 'leg right: mixamorigRightUpLeg > mixamorigRightLeg > mixamorigRightFoot',
      'arm left: mixamorigLeftArm > mixamorigLeftForeArm > mixamorigLeftHand', 'arm right: mixamorigRightArm > mixamorigRightForeArm > mixamorigRightHand',
    ]);
    expect(findPelvis(mx)).toBe(0);
    // a lone trailing capital is not a side
    const lone = topo([['Hips', null], ['SpineL', 'Hips']]);
    expect(findLimbs(lone)).toEqual([]);
  });
});

const REAL: { asset: AssetName; expect: string[] }[] = [
  {
    asset: 'threejs-xbot',
    expect: [
      'leg left: mixamorig:LeftUpLeg > mixamorig:LeftLeg > mixamorig:LeftFoot', 'leg right: mixamorig:RightUpLeg > mixamorig:RightLeg > mixamorig:RightFoot',
      'arm left: mixamorig:LeftArm > mixamorig:LeftForeArm > mixamorig:LeftHand', 'arm right: mixamorig:RightArm > mixamorig:RightForeArm > mixamorig:RightHand',
    ],
  },
  {
    asset: 'threejs-soldier',
    expect: [
      'leg left: mixamorig:LeftUpLeg > mixamorig:LeftLeg > mixamorig:LeftFoot', 'leg right: mixamorig:RightUpLeg > mixamorig:RightLeg > mixamorig:RightFoot',
      'arm left: mixamorig:LeftArm > mixamorig:LeftForeArm > mixamorig:LeftHand', 'arm right: mixamorig:RightArm > mixamorig:RightForeArm > mixamorig:RightHand',
    ],
  },
  {
    asset: 'khronos-fox',
    expect: [
      'leg left: b_LeftLeg01_015 > b_LeftLeg02_016 > b_LeftFoot01_017', 'leg right: b_RightLeg01_019 > b_RightLeg02_020 > b_RightFoot01_021',
      'leg(front) left: b_LeftUpperArm_09 > b_LeftForeArm_010 > b_LeftHand_011', 'leg(front) right: b_RightUpperArm_06 > b_RightForeArm_07 > b_RightHand_08',
    ],
  },
  {
    asset: 'quaternius-fox',
    expect: [
      'leg left: BackUpperLeg.L > BackLowerLeg.L > IKBackLeg.L (ik end)', 'leg right: BackUpperLeg.R > BackLowerLeg.R > IKBackLeg.R (ik end)',
      'leg(front) left: FrontUpperLeg.L > FrontLowerLeg.L > IKFrontLeg.L (ik end)', 'leg(front) right: FrontUpperLeg.R > FrontLowerLeg.R > IKFrontLeg.R (ik end)',
    ],
  },
  {
    asset: 'quaternius-shiba-inu',
    expect: [
      'leg left: BackUpperLeg.L > BackLowerLeg.L > IKBackLeg.L (ik end)', 'leg right: BackUpperLeg.R > BackLowerLeg.R > IKBackLeg.R (ik end)',
      'leg(front) left: FrontUpperLeg.L > FrontLowerLeg.L > IKFrontLeg.L (ik end)', 'leg(front) right: FrontUpperLeg.R > FrontLowerLeg.R > IKFrontLeg.R (ik end)',
    ],
  },
  {
    asset: 'threejs-robot-expressive',
    expect: [
      'leg left: UpperLeg.L > LowerLeg.L > Foot.L (ik end)', 'leg right: UpperLeg.R > LowerLeg.R > Foot.R (ik end)',
      'arm left: UpperArm.L > LowerArm.L > Palm2.L', 'arm right: UpperArm.R > LowerArm.R > Palm2.R',
    ],
  },
];

warnIfNoAssets();
describe('real files', () => {
  for (const r of REAL) {
    test.skipIf(!hasAsset(r.asset))(`${r.asset}: ${r.expect.length} limbs`, async () => {
      const doc = await loadAsset(r.asset);
      const skin = doc.getRoot().listSkins().sort((a, b) => b.listJoints().length - a.listJoints().length)[0]!;
      const joints = skin.listJoints();
      const names = joints.map((j) => j.getName());
      const parents = joints.map((j) => {
        const p = j.getParentNode();
        return p ? joints.indexOf(p) : -1;
      });
      // bind positions from the inverse bind matrices
      const ibm = skin.getInverseBindMatrices()!.getArray()!;
      const pos = new Float64Array(names.length * 3);
      for (let i = 0; i < names.length; i++) {
        const w = mat4.invert(mat4.create(), Array.from(ibm.slice(i * 16, i * 16 + 16)) as unknown as mat4)!;
        pos[i * 3] = w[12]!; pos[i * 3 + 1] = w[13]!; pos[i * 3 + 2] = w[14]!;
      }
      const t = { names, parents };
      expect(describeLimbs(t, findLimbs(t, pos, findPelvis(t)))).toEqual(r.expect);
      // The same skeleton as three.js's GLTFLoader names it (PropertyBinding.sanitizeNodeName:
      // '[', ']', '.', ':', '/' dropped, white space to '_'): the same limbs, the same bones.
      const sanitise = (nm: string): string => nm.replace(/\s/g, '_').replace(/[[\]\.:/]/g, '');
      const ts = { names: names.map(sanitise), parents };
      const sanitiseLine = (line: string): string => {
        const at = line.indexOf(': ') + 2, ik = line.endsWith(' (ik end)');
        const chain = line.slice(at, ik ? line.length - ' (ik end)'.length : line.length);
        return line.slice(0, at) + chain.split(' > ').map(sanitise).join(' > ') + (ik ? ' (ik end)' : '');
      };
      expect(describeLimbs(ts, findLimbs(ts, pos, findPelvis(ts)))).toEqual(r.expect.map(sanitiseLine));
    });
  }
});
