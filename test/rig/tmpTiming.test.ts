import { it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { writeGlbBytes } from '../../rig/glb';
import { makeCritter } from '../../test/bake/fixtures';
import { runCli } from '../../test/helpers/cli';
it('t', async () => {
  writeFileSync('/tmp/f28/chain.glb', await writeGlbBytes(makeCritter({ variant: 'chain' }).doc));
  writeFileSync('/tmp/f28/shin.glb', await writeGlbBytes(makeCritter({ variant: 'shin' }).doc));
  for (const b of ['chain', 'shin']) {
    for (const args of [['rig', `/tmp/f28/${b}.glb`, '-o', '/tmp/f28/o.glb', '-q'], ['measure', `/tmp/f28/${b}.glb`, '--clip', 'walk', '--samples', '4'], ['bake', `/tmp/f28/${b}.glb`, '-o', '/tmp/f28/b.glb', '--clips', 'walk', '--fps', '10']]) {
      const t0 = performance.now();
      const r = await runCli(args);
      console.log(b, args[0], r.code, (performance.now() - t0).toFixed(0), 'ms', r.err.slice(0, 2));
    }
  }
});
