import * as fs from 'fs';
import * as path from 'path';
import { loadCompose } from './lib/compose/load';
const root = '/work/shared/peers/compose-go/loader/testdata';
const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]);
for (const f of walk(root).filter((f) => /\.ya?ml$/.test(f)).sort()) {
  const rel = path.relative(root, f);
  try {
    const r = loadCompose({ workingDir: path.dirname(f), files: [path.basename(f)], env: {}, allowOutsideProject: true });
    console.log('OK ', rel, r.model.services.map((s) => `${s.name}=${s.image}`).join(' '), '|', r.warnings.map((w) => w.code).join(','));
  } catch (e: any) { console.log('ERR', rel, e.message); }
}
