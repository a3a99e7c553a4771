import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as fc from 'fast-check';
import { LEDGER_FILE } from '../../lib/cli/output/output-ledger';
import { isComposeError } from '../../lib/compose/errors';
import { HEADER, writeFiles } from '../support/write-output';
import { listFiles, removeTempDirs, tempDir } from '../cli/run-cli';
import { fuzzAssert, runsOf } from './fuzz-settings';

/**
 * The output writer under random hostile folders (issue 17): a ledger of random paths (`..`, `.`, empty parts,
 * absolute paths, backslashes, links) never makes it touch a file outside the output folder, and a write that fails
 * at a random step leaves the output folder byte for byte as it was.
 */

afterAll(removeTempDirs);

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf-8')]));
}

/** Every entry under a folder, folders (empty ones too) and links included; links are not followed. */
function entriesUnder(dir: string, prefix = ''): string[] {
  return fs.readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? [rel, ...entriesUnder(dir, rel)] : [rel];
  });
}

/** Staged files, staging folders and new folders under their staging names, empty or not. */
function leftovers(dir: string): string[] {
  return entriesUnder(dir).filter((f) =>
    f.split('/').some((part) => part.startsWith('.cdk8s-compose-') && part !== LEDGER_FILE),
  );
}

const PROPERTY_LEDGER = 'crafted ledgers touch nothing outside the output folder';
const PROPERTY_FAILURE = 'a write failing at any step leaves the output as it was';

test(PROPERTY_LEDGER, () => {
  const segment = fc.constantFrom(
    '..',
    '.',
    '',
    'app',
    'golden-image',
    'x.txt',
    'victims',
    'packer.json',
    '\\',
    '/tmp',
  );
  const listed = fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('/'));
  const hash = createHash('sha256').update('mine\n').digest('hex');
  const details = fuzzAssert(
    fc.property(fc.array(listed, { minLength: 1, maxLength: 4 }), (lines) => {
      const base = tempDir('fuzz-ledger');
      const victims = path.join(base, 'victims');
      fs.mkdirSync(victims);
      fs.writeFileSync(path.join(victims, 'x.txt'), 'mine\n');
      const root = path.join(base, 'out');
      fs.mkdirSync(path.join(root, 'golden-image', 'app'), { recursive: true });
      fs.symlinkSync(victims, path.join(root, 'golden-image', 'victims'));
      fs.writeFileSync(
        path.join(root, 'golden-image', LEDGER_FILE),
        `${HEADER}\n${lines.map((l) => `${hash}  ${l}`).join('\n')}\n`,
      );
      try {
        writeFiles(root, { 'golden-image/app/packer.json': '{}\n', 'RUNBOOK.md': `${HEADER}\n` });
      } catch (err) {
        if (!isComposeError(err)) {
          throw err;
        }
      }
      expect(fs.readFileSync(path.join(victims, 'x.txt'), 'utf-8')).toBe('mine\n');
      expect(fs.readdirSync(base).sort()).toEqual(['out', 'victims']);
      expect(leftovers(root)).toEqual([]);
    }),
    runsOf(PROPERTY_LEDGER),
  );
  expect(details.numRuns).toBe(runsOf(PROPERTY_LEDGER));
});

test(PROPERTY_FAILURE, () => {
  const files = fc.uniqueArray(
    fc.constantFrom('0-namespace/a.yaml', '2-app/b.yaml', '2-app/c.yaml', '3-vm/d.yaml', 'RUNBOOK.md'),
    { minLength: 1 },
  );
  const details = fuzzAssert(
    fc.property(files, files, fc.nat(12), (first, second, failAt) => {
      const root = path.join(tempDir('fuzz-out'), 'out');
      writeFiles(root, Object.fromEntries(first.map((f) => [f, `${HEADER}\nv1 ${f}\n`])));
      const before = snapshot(root);
      let step = 0;
      let failed = false;
      try {
        writeFiles(root, Object.fromEntries(second.map((f) => [f, `${HEADER}\nv2 ${f}\n`])), {
          // Any step: while the new files are written beside their targets, or while they are moved into place.
          beforeStep: () => {
            if (step++ === failAt) {
              throw Object.assign(new Error('EIO'), { code: 'EIO' });
            }
          },
        });
      } catch (err) {
        failed = true;
        expect(isComposeError(err)).toBe(true);
        expect(snapshot(root)).toEqual(before);
      }
      if (!failed) {
        // The wave folders hold exactly the new files; a file outside them (RUNBOOK.md) stays when it is no longer made.
        const kept = first.filter((f) => !/^\d+-/.test(f) && !second.includes(f));
        expect(Object.keys(snapshot(root)).sort()).toEqual([...second, ...kept].sort());
      }
      expect(leftovers(root)).toEqual([]);
    }),
    runsOf(PROPERTY_FAILURE),
  );
  expect(details.numRuns).toBe(runsOf(PROPERTY_FAILURE));
});
