import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Testing } from 'cdk8s';
import { findDoc, findDocs, parseYamlDocs, readYamlDocs, readYamlFiles, synthDocs } from './yaml-docs';

describe('readYamlFiles', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'yaml-docs-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('reads every .yaml and .yml file below the folder in path order, dropping empty documents', () => {
    fs.mkdirSync(path.join(dir, 'vm'));
    fs.writeFileSync(path.join(dir, 'b.yaml'), 'kind: B\n---\n---\nkind: C\n');
    fs.writeFileSync(path.join(dir, 'a.yml'), '# only a comment\n---\nkind: A\n');
    fs.writeFileSync(path.join(dir, 'vm', 'vm.k8s.yaml'), 'kind: VirtualMachine\n');
    fs.writeFileSync(path.join(dir, 'README.md'), 'kind: NotYaml\n');
    fs.symlinkSync('/etc', path.join(dir, 'outside.yaml'));
    expect(readYamlFiles(dir)).toEqual([
      { file: 'a.yml', docs: [{ kind: 'A' }] },
      { file: 'b.yaml', docs: [{ kind: 'B' }, { kind: 'C' }] },
      { file: 'vm/vm.k8s.yaml', docs: [{ kind: 'VirtualMachine' }] },
    ]);
    expect(readYamlDocs(dir).map((d) => d.kind)).toEqual(['A', 'B', 'C', 'VirtualMachine']);
  });

  test('throws naming the file on a duplicate key', () => {
    fs.writeFileSync(path.join(dir, 'dup.yaml'), 'kind: A\nkind: B\n');
    expect(() => readYamlFiles(dir)).toThrow(/^dup\.yaml: Map keys must be unique/);
  });
});

describe('parseYamlDocs', () => {
  test('reads YAML 1.1 scalars as kubectl does: an unquoted yes or on is a boolean', () => {
    expect(parseYamlDocs('data:\n  ENABLED: yes\n  DEBUG: on\n  QUOTED: "yes"\n', 'cm.yaml')).toEqual([
      { data: { ENABLED: true, DEBUG: true, QUOTED: 'yes' } },
    ]);
  });
});

describe('synthDocs, findDoc, findDocs', () => {
  test('synthesize a chart and pick documents by kind and name', () => {
    const chart = Testing.chart();
    new ApiObject(chart, 'a', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
    new ApiObject(chart, 'b', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { empty: '' } });
    const docs = synthDocs(chart);
    expect(findDoc(docs, 'ConfigMap', 'b')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b' },
      data: { empty: '' },
    });
    expect(findDocs(docs, 'ConfigMap').map((d) => d.metadata.name)).toEqual(['a', 'b']);
    expect(() => findDoc(docs, 'Secret', 'a')).toThrow('no Secret/a among the documents: ConfigMap/a, ConfigMap/b');
  });
});
