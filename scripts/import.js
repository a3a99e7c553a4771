#!/usr/bin/env node
// Regenerates imports/ offline from the pinned schemas in schemas/.
// Every source is pinned here and nowhere else; see schemas/README.md for provenance and SHA-256 sums.
'use strict';
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const SCHEMAS = path.join(ROOT, 'schemas');
const OUTDIR = path.join(ROOT, 'imports');

const K8S_VERSION = '1.27.0';
const K8S_DEFINITIONS = 'k8s/v1.27/_definitions.json';

// The CRDs whose classes the code uses, one kind each, and nothing more: generated classes that nothing imports are
// not generated (VirtualMachineInstance and VirtualMachineExport were, 14,535 lines). The other CRDs' schemas stay in
// schemas/ for validating manifests. test/imports-selection.test.ts fails when lib/ imports a module missing here, or
// when a module here is imported by nothing; to use another kind, add its CRD here and run `npm run import`.
// Each CRD gets its own module prefix (the file is imports/<prefix>-<group>.ts): CRDs of one group would otherwise
// overwrite one file.
const CRDS = [
  { kind: 'VirtualMachine', prefix: 'kubevirt-vm', file: 'kubevirt/v0.59.0/virtualmachines.kubevirt.io.yaml' },
  { kind: 'KubeVirt', prefix: 'kubevirt-kv', file: 'kubevirt/v0.59.0/kubevirts.kubevirt.io.yaml' },
  {
    kind: 'VirtualMachineSnapshot',
    prefix: 'kubevirt-snapshot',
    file: 'kubevirt/v0.59.0/virtualmachinesnapshots.snapshot.kubevirt.io.yaml',
  },
  { kind: 'DataVolume', prefix: 'cdi-dv', file: 'cdi/v1.56.0/datavolumes.cdi.kubevirt.io.yaml' },
  { kind: 'CDI', prefix: 'cdi-cdi', file: 'cdi/v1.56.0/cdis.cdi.kubevirt.io.yaml' },
];

function fail(message) {
  process.stderr.write(`import: ${message}\n`);
  process.exit(1);
}

async function main() {
  for (const file of [K8S_DEFINITIONS, ...CRDS.map((c) => c.file)]) {
    if (!fs.existsSync(path.join(SCHEMAS, file))) {
      fail(`missing schema schemas/${file}; restore the schemas/ folder from git (git checkout -- schemas)`);
    }
  }

  // The CLI downloads the k8s definitions from a hard-coded address; serve the pinned local copy instead.
  // The CLI exports no subpaths but ./package.json; reach its modules through the package folder.
  const cli = path.dirname(require.resolve('cdk8s-cli/package.json'));
  const util = require(path.join(cli, 'lib/util'));
  const expectedUrl = `https://raw.githubusercontent.com/cdk8s-team/cdk8s/master/kubernetes-schemas/v${K8S_VERSION}/_definitions.json`;
  const localDownload = util.download;
  util.download = async (url) => {
    if (path.isAbsolute(url) && url.startsWith(SCHEMAS + path.sep)) {
      return localDownload(url);
    }
    if (url !== expectedUrl) {
      throw new Error(`refusing to download ${url}: imports are generated offline`);
    }
    return fs.readFileSync(path.join(SCHEMAS, K8S_DEFINITIONS), 'utf-8');
  };
  const { ImportKubernetesApi } = require(path.join(cli, 'lib/import/k8s'));
  const { ImportCustomResourceDefinition } = require(path.join(cli, 'lib/import/crd'));
  const { Language } = require(path.join(cli, 'lib/import/base'));

  fs.rmSync(OUTDIR, { recursive: true, force: true });
  const options = { targetLanguage: Language.TYPESCRIPT, outdir: OUTDIR, save: false };
  await new ImportKubernetesApi({ apiVersion: K8S_VERSION }).import(options);
  for (const crd of CRDS) {
    const importer = await ImportCustomResourceDefinition.fromSpec({ source: path.join(SCHEMAS, crd.file) });
    await importer.import({ ...options, moduleNamePrefix: crd.prefix });
  }
  const files = fs.readdirSync(OUTDIR).sort();
  process.stdout.write(`imports/: ${files.join(', ')}\n`);
}

module.exports = { SCHEMAS, K8S_DEFINITIONS, CRDS };

if (require.main === module) {
  main().catch((err) => fail(err && err.message ? err.message : String(err)));
}
