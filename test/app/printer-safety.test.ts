import * as fs from 'fs';
import * as path from 'path';
import { unprintableValues } from '../../lib/app/printer-safety';
import { loadCompose } from '../../lib/compose/load';
import { removeTempDirs, tempDir } from '../cli/run-cli';

/** The compose values cdk8s's printer cannot print safely (issue 25, finding 1: the library's path). */

afterAll(removeTempDirs);

function model(compose: string) {
  const dir = tempDir('printer-safety');
  fs.writeFileSync(path.join(dir, 'compose.yaml'), compose);
  return loadCompose({ workingDir: dir, env: {} }).model;
}

test('each YAML 1.1 line break is named with its compose location and field, up to the limit', () => {
  const found = unprintableValues(
    model(
      [
        'services:',
        '  web:',
        '    image: nginx:1.27.2',
        '    working_dir: "/app\\u2028x"',
        '    command: ["a\\u2029b", "ok", "c\\x85d"]',
        '',
      ].join('\n'),
    ),
    2,
  );
  expect(found.map((f) => f.slice(0, f.indexOf(', which')))).toEqual([
    'compose.yaml:3:5: services.web: its command[0] holds U+2029',
    'compose.yaml:3:5: services.web: its command[2] holds U+0085',
  ]);
});

test('a project without them has none; tabs, controls and the BOM are left to the readers', () => {
  expect(
    unprintableValues(model('services:\n  web:\n    image: nginx:1.27.2\n    working_dir: "/a\\tb\\x01\\ufeff"\n')),
  ).toEqual([]);
});
