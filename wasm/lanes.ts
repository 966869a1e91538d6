/**
 * Lane-pair loads and stores shared by the scene kernels (wasm/twoBone.ts, wasm/sceneContacts.ts):
 * element k (f64, literal byte offset 8k) of two arrays at byte addresses a (lane 0) and b
 * (lane 1), a base pointer plus an immediate offset that the engine folds into the load or
 * store (an index computed per element costs an address calculation each). Inlined where used.
 */
@inline export function L0(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 0), 1, 0); }
@inline export function L1(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 8), 1, 8); }
@inline export function L2(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 16), 1, 16); }
@inline export function L3(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 24), 1, 24); }
@inline export function L4(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 32), 1, 32); }
@inline export function L5(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 40), 1, 40); }
@inline export function L6(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 48), 1, 48); }
@inline export function L7(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 56), 1, 56); }
@inline export function L8(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 64), 1, 64); }
@inline export function L9(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 72), 1, 72); }
@inline export function L10(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 80), 1, 80); }
@inline export function L11(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 88), 1, 88); }
@inline export function L12(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 96), 1, 96); }
@inline export function L13(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 104), 1, 104); }
@inline export function L14(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 112), 1, 112); }
@inline export function L15(a: usize, b: usize): v128 { return v128.load64_lane(b, v128.load64_zero(a, 120), 1, 120); }
@inline export function St0(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 0); v128.store64_lane(b, v, 1, 0); }
@inline export function St1(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 8); v128.store64_lane(b, v, 1, 8); }
@inline export function St2(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 16); v128.store64_lane(b, v, 1, 16); }
@inline export function St3(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 24); v128.store64_lane(b, v, 1, 24); }
@inline export function St4(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 32); v128.store64_lane(b, v, 1, 32); }
@inline export function St5(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 40); v128.store64_lane(b, v, 1, 40); }
@inline export function St6(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 48); v128.store64_lane(b, v, 1, 48); }
@inline export function St7(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 56); v128.store64_lane(b, v, 1, 56); }
@inline export function St8(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 64); v128.store64_lane(b, v, 1, 64); }
@inline export function St9(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 72); v128.store64_lane(b, v, 1, 72); }
@inline export function St10(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 80); v128.store64_lane(b, v, 1, 80); }
@inline export function St11(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 88); v128.store64_lane(b, v, 1, 88); }
@inline export function St12(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 96); v128.store64_lane(b, v, 1, 96); }
@inline export function St13(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 104); v128.store64_lane(b, v, 1, 104); }
@inline export function St14(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 112); v128.store64_lane(b, v, 1, 112); }
@inline export function St15(a: usize, b: usize, v: v128): void { v128.store64_lane(a, v, 0, 120); v128.store64_lane(b, v, 1, 120); }
