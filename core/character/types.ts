/**
 * Data contract of the built-in character (engine-free). Units are metres, Y up, the
 * creature faces +Z (glTF front), its left side is +X, the tail leaves the pelvis toward −Z.
 * Quaternions are x, y, z, w; matrices are column-major 4×4.
 */

/** One bone: bind local TRS in its parent's frame; `parent` indexes the same list (-1 = root). Parents come before children. */
export interface CharacterBone {
  /** Mixamo-style name without prefix (`Hips`, `LeftUpLeg`, `Tail_3`, …). */
  name: string;
  /** Parent index in {@link CharacterData.bones}, -1 for the root. */
  parent: number;
  /** Bind local translation (metres, parent frame). */
  t: [number, number, number];
  /** Bind local rotation quaternion x, y, z, w (unit). */
  r: [number, number, number, number];
  /** Bind local scale (always 1, 1, 1 here). */
  s: [number, number, number];
}

/** One animation channel: keys of a bone's local translation, rotation or scale. */
export interface CharacterTrack {
  /** Target bone name. */
  bone: string;
  /** Animated local property. */
  path: 'translation' | 'rotation' | 'scale';
  /** Interpolation between keys (rotations: slerp, as three.js does). */
  interpolation: 'LINEAR' | 'STEP';
  /** Key times in seconds, increasing, first 0, last = clip duration. */
  times: Float32Array;
  /** Key values: 3 (translation, scale) or 4 (rotation x, y, z, w) per key. */
  values: Float32Array;
}

/** A clip made in code. */
export interface CharacterClip {
  /** `walk`, `sprint`, `crouch` or `hipSweep`. */
  name: string;
  /** Length in seconds. */
  duration: number;
  /** Channels; no clip keys a `Tail_*` bone. */
  tracks: CharacterTrack[];
}

/** One skinned triangle mesh in bind space (world = model space at bind). */
export interface CharacterMesh {
  /** Vertex positions, 3 per vertex (metres). */
  positions: Float32Array;
  /** Unit vertex normals, 3 per vertex. */
  normals: Float32Array;
  /** Triangle list, counter-clockwise seen from outside. */
  indices: Uint32Array;
  /** Four bone indices per vertex (unused slots 0 with weight 0). */
  joints: Uint16Array;
  /** Four weights per vertex, sorted descending, summing to 1. */
  weights: Float32Array;
}

/** The built-in character: skeleton, skin, clips and ground truth for the rig pass. */
export interface CharacterData {
  /** Model name, `bitrig-critter`. */
  name: string;
  /** `chain`: real `Tail_1…Tail_K` bones; `shin`: tail skin on the left shin and thighs. */
  variant: 'chain' | 'shin';
  /** Skeleton, parents before children. */
  bones: CharacterBone[];
  /** 16 per bone, column-major: inverse of each bone's bind world matrix. */
  inverseBind: Float32Array;
  /** The skinned mesh. */
  mesh: CharacterMesh;
  /** `walk`, `sprint`, `crouch`, `hipSweep`. */
  clips: CharacterClip[];
  /** 1 for every vertex of the tail shell (ground truth for the rig pass). */
  tailVertex: Uint8Array;
  /** 1 for every ear vertex (ears must not become chains). */
  earVertex: Uint8Array;
  /** `Tail_1 … Tail_K` (bones in `chain`; the artist's chain kept as ground truth in `shin`). */
  tailBoneNames: string[];
  /** World bind positions of tail joints J0…JK (root head … tip), 3 per joint, both variants. */
  tailGroundTruth: Float32Array;
  /** Bind-pose bounding-box height of the mesh (metres, feet at y = 0). */
  height: number;
  /** Tail length from J0 to the tip along the centreline (metres). */
  tailLength: number;
  /** Shell id per vertex (0 torso, 1 head, 2 ears, 3 arms+hands, 4 legs, 5 feet, 6 tail). */
  shell: Uint8Array;
  /** World bind positions of the four corners of each flat sole (left then right), 3 per corner, y = 0. */
  soleCorners: Float32Array;
}

/** Options of {@link createBuiltinCharacter}. */
export interface BuiltinCharacterOptions {
  /** `chain` (Tail_1…Tail_K bones) or `shin` (auto-rigger failure: tail skin on LeftLeg + thighs). */
  variant?: 'chain' | 'shin';
  /** Number of tail links K, integer 3…8. */
  tailLinks?: number;
  /** Tail length from where it leaves the body to the tip, metres (0.3…1.2). */
  tailLength?: number;
}
