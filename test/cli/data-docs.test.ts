import * as fs from 'fs';
import * as path from 'path';
import * as cdk8s from 'cdk8s';
import { parseAllDocuments } from 'yaml';
import * as ts from 'typescript';
import * as library from '../../lib';
import { findDoc, findDocs } from '../support/yaml-docs';
import { CliRun, ROOT, expectBuilt, manifestDocs, removeTempDirs, runCli, tempDir } from './run-cli';

// docs/data.md's example, run as written: its compose file through its convert command, and its ComposeApp snippet.

// The example's sections; "Move the data" has examples of its own (test/cli/move-data/move-data.test.ts).
const GUIDE = fs.readFileSync(path.join(ROOT, 'docs', 'data.md'), 'utf8');
const DOC = GUIDE.slice(0, GUIDE.indexOf('## Move the data'));

/** The one fenced block of a language in the guide. */
function block(lang: string): string {
  const blocks = [...DOC.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
  expect(blocks).toHaveLength(1);
  return blocks[0];
}

let project: string;
let run: CliRun;

beforeAll(async () => {
  expectBuilt();
  project = tempDir('data-docs');
  fs.writeFileSync(path.join(project, 'compose.yaml'), block('yaml'));
  fs.mkdirSync(path.join(project, 'prometheus'));
  fs.writeFileSync(path.join(project, 'prometheus', 'prometheus.yml'), 'scrape_configs: []\n');
  const command = block('sh').trim().split(/\s+/);
  expect(command[0]).toBe('cdk8s-compose');
  run = await runCli(command.slice(1), { cwd: project });
}, 90_000);

afterAll(removeTempDirs);

test('the convert command of the example writes the claims the guide describes', () => {
  expect(run.code).toBe(0);
  const docs = manifestDocs(path.join(project, 'k8s'));
  const claims = findDocs(docs, 'PersistentVolumeClaim').sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  expect(
    claims.map((c) => [
      c.metadata.name,
      c.metadata.annotations['cdk8s-compose.io/compose-source'],
      c.spec.resources.requests.storage,
      c.spec.storageClassName,
    ]),
  ).toEqual([
    ['library', 'bind:./library', '50Gi', 'standard'],
    ['postgres', 'bind:./postgres', '1Gi', 'standard'],
    ['prometheus', 'bind:./prometheus', '1Gi', 'standard'],
    ['uploads', 'volume:uploads', '20Gi', 'standard'],
  ]);
  const pod = (name: string) => findDoc(docs, 'Deployment', name).spec.template;
  expect(pod('database').spec.containers[0].volumeMounts[0]).toMatchObject({ subPath: 'pgdata' });
  expect(pod('prometheus').spec.initContainers.map((c: any) => c.name)).toEqual(['prometheus-seed']);
  expect(pod('server').spec.securityContext.fsGroup).toBe(1000);
  expect(pod('server').spec.initContainers.map((c: any) => c.name)).toEqual(['uploads-copy-up']);
  for (const name of ['server', 'worker']) {
    expect(pod(name).metadata.labels['cdk8s-compose.io/volume-group']).toBe('uploads');
  }
  expect(run.stderr).toMatch(/; data: 5 durable, 1 shared, 1 seeded \(0 broken\)\n/);
});

test('the ComposeApp snippet of the example runs: the shared claim is ReadWriteMany, no affinity', () => {
  const js = ts.transpileModule(block('ts'), { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
  const modules: Record<string, unknown> = { 'cdk8s': cdk8s, 'cdk8s-compose': library };
  const cwd = process.cwd();
  process.chdir(project);
  try {
    // Run as a cdk8s app does: app.synth() writes dist/photos.k8s.yaml in the project folder.
    new Function('require', 'exports', js)((name: string) => modules[name], {});
  } finally {
    process.chdir(cwd);
  }
  const docs = parseAllDocuments(fs.readFileSync(path.join(project, 'dist', 'photos.k8s.yaml'), 'utf8')).map((d) =>
    d.toJSON(),
  );
  expect(findDoc(docs, 'PersistentVolumeClaim', 'uploads').spec.accessModes).toEqual(['ReadWriteMany']);
  expect(findDocs(docs, 'Deployment').some((d) => d.spec.template.spec.affinity)).toBe(false);
});
