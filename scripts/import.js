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

// Generated classes that nothing uses are not generated: imports/ holds the kinds that lib/ (or a test) uses and the
// types they reference, nothing more. test/scripts/import.test.ts fails when the code imports something missing here,
// or when a kind here is used by nothing. To use another kind, add it below and run `npm run import`.

// The Kubernetes kinds, by their definition in the k8s schema. The other definitions of kinds are left out of the
// schema the generator reads (the types they share stay); the generated code of a kept kind does not change.
const K8S_KINDS = [
  'io.k8s.api.apps.v1.Deployment', // test/app/quota/quota.test.ts
  'io.k8s.api.apps.v1.StatefulSet', // test/app/quota/quota.test.ts
  'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler',
  'io.k8s.api.batch.v1.CronJob', // test/app/quota/quota.test.ts
  'io.k8s.api.batch.v1.Job', // test/app/quota/quota.test.ts
  'io.k8s.api.core.v1.PersistentVolumeClaim', // test/app/quota/quota.test.ts
  'io.k8s.api.core.v1.Pod', // test/app/quota/quota.test.ts
  'io.k8s.api.core.v1.ResourceQuota',
  'io.k8s.api.core.v1.Secret',
  'io.k8s.api.core.v1.Service', // lib/app/external-service.ts
  'io.k8s.api.discovery.v1.EndpointSlice', // lib/app/external-service.ts
  'io.k8s.api.networking.v1.NetworkPolicy',
];

// The CRDs, one kind each. The other CRDs' schemas stay in schemas/ for validating manifests.
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

/** The k8s schema with the definitions of kinds not in K8S_KINDS taken out. */
function k8sSchema() {
  const schema = JSON.parse(fs.readFileSync(path.join(SCHEMAS, K8S_DEFINITIONS), 'utf-8'));
  for (const name of K8S_KINDS) {
    if (!isKind(schema.definitions[name])) {
      fail(`K8S_KINDS: ${name} is not a kind in schemas/${K8S_DEFINITIONS}; check its spelling (group, version, kind)`);
    }
  }
  for (const [name, definition] of Object.entries(schema.definitions)) {
    if (isKind(definition) && !K8S_KINDS.includes(name)) {
      delete schema.definitions[name];
    }
  }
  return JSON.stringify(schema);
}

/** What the cdk8s CLI generates a class for: a definition with a group-version-kind and metadata. */
function isKind(definition) {
  return Boolean(definition && definition['x-kubernetes-group-version-kind'] && definition.properties?.metadata);
}

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
    return k8sSchema();
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

module.exports = { SCHEMAS, K8S_DEFINITIONS, K8S_KINDS, CRDS };

if (require.main === module) {
  main().catch((err) => fail(err && err.message ? err.message : String(err)));
}
