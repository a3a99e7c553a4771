import * as fs from 'fs';
import * as path from 'path';
import { findDoc } from '../support/yaml-docs';
import { CliRun, expectBuilt, inParallel, manifestDocs, removeTempDirs, runCli, tempDir } from './run-cli';

// What convert tells the operator about the data: a folder too large to seed names move-data under "Before you
// deploy", and ReadWriteMany claims name the storage class they need.

const COMPOSE = `
services:
  app:
    image: nginx:1.27
    volumes: [./big:/srv/big, shared:/srv/shared]
  sidekick:
    image: nginx:1.27
    volumes: [shared:/srv/shared:ro]
volumes:
  shared: {}
`;

const runs: Record<string, CliRun> = {};
const dirs: Record<string, string> = {};

beforeAll(async () => {
  expectBuilt();
  const tasks: Array<[string, string[]]> = [
    ['node', ['convert', '-o', 'k8s']],
    ['rwx', ['convert', '--shared-volumes', 'rwx', '--storage-class-name', 'nfs-client', '-o', 'k8s']],
  ];
  for (const [name] of tasks) {
    dirs[name] = tempDir('data-mounts');
    fs.writeFileSync(path.join(dirs[name], 'compose.yaml'), COMPOSE);
    fs.mkdirSync(path.join(dirs[name], 'big'));
    fs.writeFileSync(path.join(dirs[name], 'big', 'blob.bin'), Buffer.alloc(1024 * 1024 + 1, 7));
  }
  await inParallel(tasks, 2, async ([name, args]) => {
    runs[name] = await runCli(args, { cwd: dirs[name] });
  });
}, 90_000);

afterAll(removeTempDirs);

function beforeYouDeploy(name: string): string {
  const runbook = fs.readFileSync(path.join(dirs[name], 'k8s', 'RUNBOOK.md'), 'utf8');
  return runbook.split('## 1. Before you deploy\n')[1].split('\n## ')[0];
}

test('a folder too large for a ConfigMap is a claim that starts empty, and Before you deploy names move-data', () => {
  expect(runs.node.code).toBe(0);
  const docs = manifestDocs(path.join(dirs.node, 'k8s'));
  expect(findDoc(docs, 'PersistentVolumeClaim', 'big').metadata.annotations['cdk8s-compose.io/compose-source']).toBe(
    'bind:./big',
  );
  const section = beforeYouDeploy('node');
  expect(section).toContain('**Data to bring over** (1). Fix: these claims start empty');
  expect(section).toMatch(
    /^- compose\.yaml:\d+:\d+: services\.app\.volumes\[0\]: the bound folder "\.\/big" holds more than a ConfigMap can .*`cdk8s-compose move-data`/m,
  );
  expect(section).toContain('**Volumes shared by several pods** (1).');
});

test('--shared-volumes rwx: the shared claim is ReadWriteMany, and Before you deploy names the class it needs', () => {
  expect(runs.rwx.code).toBe(0);
  const docs = manifestDocs(path.join(dirs.rwx, 'k8s'));
  expect(findDoc(docs, 'PersistentVolumeClaim', 'shared').spec.accessModes).toEqual(['ReadWriteMany']);
  expect(findDoc(docs, 'PersistentVolumeClaim', 'big').spec.accessModes).toEqual(['ReadWriteOnce']);
  const section = beforeYouDeploy('rwx');
  expect(section).toContain('**ReadWriteMany storage** (1).');
  expect(section).toContain(
    'its claim "shared" is ReadWriteMany, which needs a storage class that supports it (the class "nfs-client")',
  );
  expect(section).not.toContain('**Volumes shared by several pods**');
});
