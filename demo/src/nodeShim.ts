/**
 * Stand-in for `node:fs` / `node:path` in the browser bundle: glTF-Transform's NodeIO imports
 * them lazily, and the demo never uses NodeIO (it reads and writes GLB bytes with WebIO).
 */
export default {};
