import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { SCHEMAS_DIR } from './support/shared';

// The pinned schemas are upstream data: their bytes must be the ones schemas/README.md and SHA256SUMS record.
describe('schemas/', () => {
  const lines = fs.readFileSync(path.join(SCHEMAS_DIR, 'SHA256SUMS'), 'utf8').trim().split('\n');
  const listed = lines.map((line) => {
    const [sum, file] = line.split(/\s+/);
    return { sum, file: path.normalize(file) };
  });

  test.each(listed)('$file has the recorded SHA-256', ({ sum, file }) => {
    const actual = createHash('sha256')
      .update(fs.readFileSync(path.join(SCHEMAS_DIR, file)))
      .digest('hex');
    expect(actual).toBe(sum);
  });

  test('every schema file is listed', () => {
    const walk = (dir: string): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) =>
          e.isDirectory() ? walk(path.join(dir, e.name)) : [path.relative(SCHEMAS_DIR, path.join(dir, e.name))],
        );
    const files = walk(SCHEMAS_DIR)
      .filter((f) => f !== 'README.md' && f !== 'SHA256SUMS')
      .sort();
    expect(files).toEqual(listed.map((l) => l.file).sort());
  });
});
