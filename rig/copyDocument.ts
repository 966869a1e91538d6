/**
 * A deep copy of a glTF-Transform Document with `@gltf-transform/core` alone (the functions
 * package, which has its own `cloneDocument`, pulls a native image library into every install).
 *
 * Every property reachable in the source's graph gets a counterpart of the same class in a new
 * Document; each counterpart then copies its source's fields, references mapped to the
 * counterparts (core's `Property.copy(other, resolve)`). TextureInfo objects belong to their
 * material and are copied with it. Extensions used by the source are registered first, so
 * extension properties have their extension on the copy.
 */
import { Document, PropertyType, type Graph, type Property } from '@gltf-transform/core';

type PropertyClass = new (graph: Graph<Property>) => Property;

/**
 * Copy `source` into a new Document: same scenes, nodes, skins, meshes, accessors, buffers,
 * animations, materials, textures, extras and extensions; nothing shared with the source.
 *
 * @example
 * const scratch = copyDocument(doc); // run the rig pass on the copy, doc stays as it is
 */
export function copyDocument(source: Document): Document {
  const target = new Document().setLogger(source.getLogger());
  for (const ext of source.getRoot().listExtensionsUsed()) {
    const copy = target.createExtension(ext.constructor as Parameters<Document['createExtension']>[0]);
    if (ext.isRequired()) copy.setRequired(true);
  }
  const counterpart = new Map<Property, Property>([[source.getRoot() as Property, target.getRoot() as Property]]);
  const mapTo = <T extends Property>(p: T): T => {
    if (p.propertyType === PropertyType.TEXTURE_INFO) return p; // copied by its material
    let q = counterpart.get(p);
    if (q === undefined) {
      q = new (p.constructor as PropertyClass)(target.getGraph());
      counterpart.set(p, q);
    }
    return q as T;
  };
  const reachable = new Set<Property>();
  for (const edge of source.getGraph().listEdges()) reachable.add(edge.getChild());
  const pairs: [Property, Property][] = [];
  for (const p of reachable) if (p.propertyType !== PropertyType.TEXTURE_INFO && p !== source.getRoot()) pairs.push([p, mapTo(p)]);
  for (const [from, to] of pairs) to.copy(from as never, mapTo);
  target.getRoot().copy(source.getRoot(), mapTo);
  return target;
}
