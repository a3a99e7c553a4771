import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadCompose } from './lib/compose/load';
const src = '/work/shared/peers/compose-go/loader';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fx-'));
for (const f of ['full-example.yml', 'example1.env', 'example2.env', 'example1.label', 'example2.label']) fs.copyFileSync(path.join(src, f), path.join(dir, f));
fs.writeFileSync(path.join(dir, 'secret_data'), 'secret\n'); fs.writeFileSync(path.join(dir, 'config_data'), 'config\n');
fs.writeFileSync(path.join(dir, 'consistency.yaml'), 'services:\n  foo:\n    network_mode: !reset null\n  db:\n    image: postgres:16\n  redis:\n    image: redis:7\nvolumes:\n  datavolume:\nnetworks:\n  other-other-network:\n');
try {
  const r = loadCompose({ workingDir: dir, files: ['full-example.yml', 'consistency.yaml'], env: { HOME: '/home/foo', BAR: 'this is a secret', QUX: 'qux_from_environment' } });
  console.log(JSON.stringify(r.model, (k, v) => k === 'at' ? undefined : v));
  for (const w of r.warnings) console.log(w.code, w.at.path, w.message.slice(0,120));
} catch (e: any) { console.log('ERR', e.message); }
