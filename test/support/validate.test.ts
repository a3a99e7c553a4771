import * as fs from 'fs';
import * as path from 'path';
import { sampleManifests } from './sample-manifests';
import { expectValidManifests, validateManifests } from './validate';
import { findDoc } from './yaml-docs';

describe('validateManifests', () => {
  test('passes the clean sample: core, apps, batch, networking, KubeVirt and CDI kinds', () => {
    expect(validateManifests(sampleManifests())).toEqual([]);
  });

  test('rejects an unknown field at the top level', () => {
    const docs = sampleManifests();
    findDoc(docs, 'Service', 'web').spec2 = {};
    expect(validateManifests(docs)).toEqual([
      { kind: 'Service', name: 'web', path: 'spec2', message: 'unknown field "spec2"' },
    ]);
  });

  test('rejects an unknown field deep inside a pod spec', () => {
    const docs = sampleManifests();
    findDoc(docs, 'Deployment', 'web').spec.template.spec.containers[0].securityContext = { privilegd: true };
    expect(validateManifests(docs)).toEqual([
      {
        kind: 'Deployment',
        name: 'web',
        path: 'spec.template.spec.containers[0].securityContext.privilegd',
        message: 'unknown field "privilegd"',
      },
    ]);
  });

  test('rejects an unknown field in metadata and in label-like maps of the wrong type', () => {
    const docs = sampleManifests();
    const web = findDoc(docs, 'Deployment', 'web');
    web.metadata.label = { a: 'b' };
    web.spec.template.metadata.labels.enabled = true;
    expect(validateManifests(docs)).toEqual([
      { kind: 'Deployment', name: 'web', path: 'metadata.label', message: 'unknown field "label"' },
      {
        kind: 'Deployment',
        name: 'web',
        path: 'spec.template.metadata.labels.enabled',
        message: 'must be string, got boolean true',
      },
    ]);
  });

  test('rejects an unknown field deep inside a VirtualMachine and a DataVolume', () => {
    const docs = sampleManifests();
    findDoc(docs, 'VirtualMachine', 'legacy').spec.template.spec.domain.devices.disks[0].disk.buss = 'virtio';
    findDoc(docs, 'VirtualMachine', 'legacy').spec.template.metadata.label = {};
    findDoc(docs, 'DataVolume', 'legacy-root').spec.source.http.uri = 'x';
    expect(validateManifests(docs)).toEqual([
      { kind: 'DataVolume', name: 'legacy-root', path: 'spec.source.http.uri', message: 'unknown field "uri"' },
      {
        kind: 'VirtualMachine',
        name: 'legacy',
        path: 'spec.template.metadata.label',
        message: 'unknown field "label"',
      },
      {
        kind: 'VirtualMachine',
        name: 'legacy',
        path: 'spec.template.spec.domain.devices.disks[0].disk.buss',
        message: 'unknown field "buss"',
      },
    ]);
  });

  test('rejects any key inside a CRD object that has no properties, such as masquerade: {}', () => {
    const docs = sampleManifests();
    findDoc(docs, 'VirtualMachine', 'legacy').spec.template.spec.domain.devices.interfaces[0].masquerade = {
      ports: [80],
    };
    expect(validateManifests(docs)).toEqual([
      {
        kind: 'VirtualMachine',
        name: 'legacy',
        path: 'spec.template.spec.domain.devices.interfaces[0].masquerade.ports',
        message: 'unknown field "ports"',
      },
    ]);
  });

  test('rejects a wrong type', () => {
    const docs = sampleManifests();
    findDoc(docs, 'Deployment', 'web').spec.template.spec.containers[0].ports[0].containerPort = '8080';
    findDoc(docs, 'VirtualMachine', 'legacy').spec.running = 'yes';
    expect(validateManifests(docs)).toEqual([
      {
        kind: 'Deployment',
        name: 'web',
        path: 'spec.template.spec.containers[0].ports[0].containerPort',
        message: 'must be integer, got string "8080"',
      },
      { kind: 'VirtualMachine', name: 'legacy', path: 'spec.running', message: 'must be boolean, got string "yes"' },
    ]);
  });

  test('rejects a missing required field', () => {
    const docs = sampleManifests();
    delete findDoc(docs, 'Deployment', 'web').spec.template.spec.containers[0].name;
    delete findDoc(docs, 'VirtualMachine', 'legacy').spec.template.spec.domain.devices;
    expect(validateManifests(docs)).toEqual([
      {
        kind: 'Deployment',
        name: 'web',
        path: 'spec.template.spec.containers[0].name',
        message: 'required field is missing',
      },
      {
        kind: 'VirtualMachine',
        name: 'legacy',
        path: 'spec.template.spec.domain.devices',
        message: 'required field is missing',
      },
    ]);
  });

  test('rejects an unknown kind, and a known kind under the wrong apiVersion', () => {
    const docs = [
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
      { apiVersion: 'extensions/v1beta1', kind: 'Deployment', metadata: { name: 'old' } },
      'not a manifest',
    ];
    expect(validateManifests(docs)).toEqual([
      {
        kind: 'Widget',
        name: 'w',
        path: '',
        message:
          'unknown apiVersion/kind "example.com/v1" "Widget": no schema for it in k8s 1.27, KubeVirt v0.59.0, CDI v1.56.0 or the GitOps CRDs',
      },
      {
        kind: 'Deployment',
        name: 'old',
        path: '',
        message:
          'unknown apiVersion/kind "extensions/v1beta1" "Deployment": no schema for it in k8s 1.27, KubeVirt v0.59.0' +
          ', CDI v1.56.0 or the GitOps CRDs (Deployment is known as apiVersion apps/v1)',
      },
      { kind: '<no kind>', name: '<unnamed>', path: '', message: 'a manifest must be an object, got "not a manifest"' },
    ]);
  });

  test('checks the items of a v1 List one by one', () => {
    const docs = sampleManifests();
    findDoc(docs, 'Service', 'web').spec2 = {};
    expect(validateManifests([{ apiVersion: 'v1', kind: 'List', items: docs }])).toEqual([
      { kind: 'Service', name: 'web', path: 'spec2', message: 'unknown field "spec2"' },
    ]);
  });

  test('accepts a kind without a schema only when the caller lists it', () => {
    const nad = { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name: 'vlan10' } };
    expect(validateManifests([nad], { unvalidatedKinds: ['k8s.cni.cncf.io/v1/NetworkAttachmentDefinition'] })).toEqual(
      [],
    );
    expect(validateManifests([nad])).toHaveLength(1);
  });

  test('int-or-string fields take both; quantities take numbers and strings of their grammar only', () => {
    const docs = sampleManifests();
    const web = findDoc(docs, 'Deployment', 'web');
    web.spec.strategy = { rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } };
    web.spec.template.spec.containers[0].resources.limits = { cpu: 2, memory: '1.5Gi' };
    expect(validateManifests(docs)).toEqual([]);

    web.spec.template.spec.containers[0].resources.limits = { cpu: '1 core', memory: '512MB' };
    findDoc(docs, 'VirtualMachine', 'legacy').spec.template.spec.domain.resources.requests.memory = '2 GiB';
    expect(validateManifests(docs)).toEqual([
      {
        kind: 'Deployment',
        name: 'web',
        path: 'spec.template.spec.containers[0].resources.limits.cpu',
        message: 'must be a quantity such as 500m, 2, 1.5Gi or 10G, got "1 core"',
      },
      {
        kind: 'Deployment',
        name: 'web',
        path: 'spec.template.spec.containers[0].resources.limits.memory',
        message: 'must be a quantity such as 500m, 2, 1.5Gi or 10G, got "512MB"',
      },
      {
        kind: 'VirtualMachine',
        name: 'legacy',
        path: 'spec.template.spec.domain.resources.requests.memory',
        message: 'must be a quantity such as 500m, 2, 1.5Gi or 10G, got "2 GiB"',
      },
    ]);
  });

  test('checks the formats the API server checks: int32 range and base64 Secret data', () => {
    const docs = sampleManifests();
    findDoc(docs, 'Deployment', 'web').spec.replicas = 2 ** 31;
    findDoc(docs, 'Secret', 'db-credentials').data.POSTGRES_PASSWORD = 'not base64!';
    const problems = validateManifests(docs).map((p) => `${p.kind} ${p.path}`);
    expect(problems).toEqual(['Secret data.POSTGRES_PASSWORD', 'Deployment spec.replicas']);
  });

  test('rejects a value outside an enum', () => {
    const docs = sampleManifests();
    findDoc(docs, 'DataVolume', 'legacy-root').spec.contentType = 'iso';
    expect(validateManifests(docs)).toEqual([
      {
        kind: 'DataVolume',
        name: 'legacy-root',
        path: 'spec.contentType',
        message: 'must be one of "kubevirt", "archive", got "iso"',
      },
    ]);
  });
});

describe('expectValidManifests', () => {
  test('throws one error listing every problem as Kind/name: path: message', () => {
    const docs = sampleManifests();
    findDoc(docs, 'Service', 'web').spec.ports[0].port = 'eighty';
    findDoc(docs, 'ConfigMap', 'web-env').data.DEBUG = false;
    expect(() => expectValidManifests(docs)).toThrow(
      [
        'schema validation: 2 problems',
        '  ConfigMap/web-env: data.DEBUG: must be string, got boolean false',
        '  Service/web: spec.ports[0].port: must be integer, got string "eighty"',
      ].join('\n'),
    );
  });

  test('returns quietly for valid manifests', () => {
    expect(() => expectValidManifests(sampleManifests())).not.toThrow();
  });
});

describe('compiled validator cache', () => {
  test('a fresh module registry loads compiled validators from disk and reaches the same verdicts', () => {
    if (process.env.CDK8S_COMPOSE_VALIDATOR_CACHE === 'off') {
      return;
    }
    const root = path.resolve(__dirname, '../../node_modules/.cache/cdk8s-compose-validator');
    const [dir] = fs.readdirSync(root);
    expect(fs.readdirSync(path.join(root, dir))).toEqual(
      expect.arrayContaining([
        'apps_v1_Deployment.js',
        'kubevirt.io_v1_VirtualMachine.js',
        'cdi.kubevirt.io_v1beta1_DataVolume.js',
        'catalog.json',
      ]),
    );
    const docs = sampleManifests();
    findDoc(docs, 'Service', 'web').spec2 = {};
    let fresh: typeof import('./validate') | undefined;
    jest.isolateModules(() => {
      fresh = require('./validate');
    });
    expect(fresh!.validateManifests(docs)).toEqual(validateManifests(docs));
  });
});
