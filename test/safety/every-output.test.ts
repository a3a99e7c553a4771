import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadCompose } from '../../lib/compose/load';
import { ComposeModel } from '../../lib/compose/model';
import { referenceAppDir } from '../../lib/reference-chart';
import { checkSafety, checkSecretLeaks } from '../support/safety-rules';
import {
  CORPUS_DIRS, VM_FIXTURE, WrittenOutput, corpusLoadOptions, readDist, referenceSecrets, writeCorpusApp, writeReference,
  writeVmExample,
} from '../support/outputs';

/**
 * The safety lint over every output, with the secrets taken from the INPUT, classified here independently of the
 * converter (a value the converter failed to call secret would be missing from its own Secrets, and a scan for
 * those alone would miss the leak): sensitive-looking variables and every compose secret's content must not appear
 * outside a Secret, in the manifests, the warnings or the golden-image bundle. Unpinned images get a warning, one
 * per container of each unpinned compose image. (The other safety rules run over every output in
 * test/conformance.)
 */

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-safety-')));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Names this test holds sensitive, whatever the converter thinks. */
const SENSITIVE = /PASSWORD|PASSWD|PASS$|SECRET|TOKEN|API_?KEY|PRIVATE|CREDENTIAL|SIGNING/i;
/** Values that are flags or placeholders, not secrets. */
const NOT_SECRET = /^(true|false|yes|no|on|off|none|null|changeme|invalid|\$\{.*\}|)$/i;

/** The secret values of a model as this test sees them, except those that are also names of the app (weak). */
function inputSecrets(model: ComposeModel, namespace: string): string[] {
  const values = [
    ...model.services.flatMap((s) => s.environment.filter((e) => SENSITIVE.test(e.name) && !e.name.endsWith('_FILE')).map((e) => e.value)),
    ...model.services.flatMap((s) => s.environment.map((e) => /:\/\/[^/\s:@]*:([^@\s/]+)@/.exec(e.value)?.[1])),
    ...model.secrets.map((s) => (s.source.kind === 'file' || s.source.kind === 'environment' || s.source.kind === 'content'
      ? (s.source.content.binary ? undefined : s.source.content.text.trim()) : undefined)),
  ].filter((v): v is string => typeof v === 'string' && v.length >= 4 && !NOT_SECRET.test(v));
  const names = [model.name, namespace, ...model.services.flatMap((s) => [s.name, s.image])].map((n) => n.toLowerCase());
  return [...new Set(values)].filter((v) => !names.some((n) => n.includes(v.toLowerCase())));
}

interface Case {
  readonly output: WrittenOutput;
  readonly model: ComposeModel;
  readonly secrets: readonly string[];
}

const reference = writeReference(path.join(scratch, 'reference'));
const referenceModel = loadCompose({ workingDir: referenceAppDir(), env: {} }).model;
const vmModel = loadCompose({ workingDir: VM_FIXTURE, env: {} }).model;
const CASES: Case[] = [
  { output: reference, model: referenceModel, secrets: [...new Set([...inputSecrets(referenceModel, 'shop'), ...referenceSecrets()])] },
  { output: readDist(reference), model: referenceModel, secrets: [...new Set([...inputSecrets(referenceModel, 'shop'), ...referenceSecrets()])] },
  { output: writeVmExample(path.join(scratch, 'vm')), model: vmModel, secrets: inputSecrets(vmModel, 'legacy') },
  ...CORPUS_DIRS.map((dir) => {
    const model = loadCompose(corpusLoadOptions(dir)).model;
    const output = writeCorpusApp(dir, path.join(scratch, 'corpus', dir));
    const namespace = output.docs.find((d) => d.kind === 'Namespace')?.metadata?.name ?? model.name;
    return { output, model, secrets: inputSecrets(model, namespace) };
  }),
];

/** Images with no tag, `:latest`, and no digest. */
function unpinned(image: string): boolean {
  if (image.includes('@')) {
    return false;
  }
  const tag = /:([^:/]+)$/.exec(image)?.[1];
  return tag === undefined || tag === 'latest';
}

describe.each(CASES.map((c) => [c.output.name, c] as const))('%s', (_name, { output, model, secrets }) => {
  test('no secret value of the input appears outside a Secret: manifests, warnings, bundle files', () => {
    expect(checkSecretLeaks(output.docs, { secretValues: secrets, texts: output.texts })).toEqual([]);
  });

  test('every container of an unpinned image gets a warning, and no other', () => {
    const images = new Set(model.services.map((s) => s.image).filter(unpinned));
    const { warnings } = checkSafety(output.docs, { secretValues: [] });
    const flagged = new Set(warnings.map((w) => /image "([^"]+)"/.exec(w.message)?.[1]));
    const used = new Set(output.docs.flatMap((d) => JSON.stringify(d).match(/"image":"[^"]+"/g) ?? [])
      .map((m) => m.slice(9, -1)).filter(unpinned));
    expect([...flagged].sort()).toEqual([...used].sort());
    for (const image of used) {
      // Every unpinned image in the output comes from the compose file (the converter adds only pinned ones).
      expect(images.has(image) || [...images].some((i) => image.endsWith(i))).toBe(true);
    }
  });
});

test('casaos\'s MONGO_PASS (a password by the word PASS) stays out of ConfigMaps', () => {
  const { output, secrets } = CASES.find((c) => c.output.name === 'corpus/casaos-unifi-network-application')!;
  expect(secrets).toContain('pass');
  expect(checkSecretLeaks(output.docs, { secretValues: secrets })).toEqual([]);
});

test('the leak scan with input secrets can fail: a secret value planted in a ConfigMap is found', () => {
  const { output, secrets } = CASES.find((c) => c.output.name === 'reference')!;
  expect(secrets.length).toBeGreaterThan(0);
  const planted = output.docs.map((d) => (d.kind === 'ConfigMap' ? { ...d, data: { ...(d.data ?? {}), LEAK: secrets[0] } } : d));
  expect(planted.some((d) => d.kind === 'ConfigMap')).toBe(true);
  expect(checkSecretLeaks(planted, { secretValues: secrets })).not.toEqual([]);
});

test('the totals', () => {
  const secretCount = CASES.reduce((n, c) => n + c.secrets.length, 0);
  const warnings = CASES.reduce((n, c) => n + checkSafety(c.output.docs, { secretValues: [] }).warnings.length, 0);
  // eslint-disable-next-line no-console
  console.log(`safety: ${secretCount} input secret values kept out of ${CASES.length} outputs; ${warnings} unpinned-image warnings`);
  expect(secretCount).toBeGreaterThan(0);
});
