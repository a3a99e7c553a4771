import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { expectManifestsPass } from '../support/checks';
import { readmeCount } from '../support/readme';
import {
  CORPUS_DIRS, DIST, WrittenOutput, readDist, writeCorpusApp, writeReference, writeVmExample,
} from '../support/outputs';

/**
 * Conformance of every output the library writes, read back from disk as kubectl reads it: the reference app (a
 * fresh synth and the committed dist/), every corpus file through ComposeApp, and the VM examples. Each document
 * passes the schema validator (unknown fields rejected), the Kubernetes rules and the safety rules; every YAML file
 * written is `yamllint -d relaxed` clean. (The golden-image bundles are checked with packer, systemd-analyze and
 * cloud-init by test/vm and test/reference, dist/'s included.)
 */

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-conformance-')));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const reference = writeReference(path.join(scratch, 'reference'));
const OUTPUTS: WrittenOutput[] = [
  reference,
  readDist(reference),
  ...CORPUS_DIRS.map((dir) => writeCorpusApp(dir, path.join(scratch, 'corpus', dir))),
  writeVmExample(path.join(scratch, 'vm')),
];

/** Problems yamllint reports, other than long lines (a warning in the relaxed profile: commands are long). */
function yamllint(folders: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('yamllint', ['-d', 'relaxed', '-f', 'parsable', ...folders]);
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.on('error', (err) => reject(new Error(`yamllint did not run (scripts/install-tools.sh installs it): ${err.message}`)));
    child.on('close', () => resolve(Buffer.concat(out).toString('utf8').split('\n')
      .filter((line) => line !== '' && !line.includes('(line-length)'))));
  });
}

const lint = yamllint([scratch, DIST]);

/** Totals for the README's "What is checked" (printed, and the README held to them). */
export const TOTALS = {
  documents: OUTPUTS.reduce((n, o) => n + o.docs.length, 0),
  yamlFiles: OUTPUTS.reduce((n, o) => n + o.files.filter((f) => /\.ya?ml$/.test(f)).length, 0),
  corpusFiles: CORPUS_DIRS.length,
};

describe.each(OUTPUTS.map((o) => [o.name, o] as const))('%s', (_name, output) => {
  test('every document passes the schema validator, the Kubernetes rules and the safety rules', () => {
    expect(output.docs.length).toBeGreaterThan(0);
    expectManifestsPass(output.docs, output.options);
  });
});

test('every YAML file written is yamllint -d relaxed clean', async () => {
  expect(TOTALS.yamlFiles).toBeGreaterThan(CORPUS_DIRS.length);
  expect(await lint).toEqual([]);
});

test('the README\'s "What is checked" claims no more than this suite checks', () => {
  expect(readmeCount('documents written by the library')).toBeLessThanOrEqual(TOTALS.documents);
  expect(readmeCount('YAML files the library writes')).toBeLessThanOrEqual(TOTALS.yamlFiles);
  expect(readmeCount('corpus files')).toBe(TOTALS.corpusFiles);
});

test('the totals', () => {
  // eslint-disable-next-line no-console
  console.log(`conformance: ${TOTALS.documents} documents validated in ${OUTPUTS.length} outputs; `
    + `${TOTALS.yamlFiles} YAML files linted; ${TOTALS.corpusFiles} corpus files`);
  expect(TOTALS.corpusFiles).toBe(30);
});
