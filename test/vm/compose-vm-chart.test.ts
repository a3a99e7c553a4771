import * as fs from 'fs';
import * as path from 'path';
import { App, Testing } from 'cdk8s';
import { GoldenImageBundle } from '../../lib/vm/golden-image-bundle';
import { ComposeVmChart, ComposeVmChartProps } from '../../lib/vm/compose-vm-chart';
import { expectManifestsPass } from '../support/checks';
import { tempDir } from './tools';

const COMPOSE_FILE = path.join(__dirname, 'fixtures/legacy/compose.yaml');
const PROPS: ComposeVmChartProps = {
  namespace: 'legacy',
  composeFile: COMPOSE_FILE,
  loadOptions: { env: {} },
  services: ['agent', 'app'],
  imageBaseUrl: 'https://images.example.com/vm',
  ingress: { service: 'app', host: 'legacy.example.com' },
};

describe('ComposeVmChart', () => {
  test('a self-contained VM migration: VM, DataVolume, Services, Ingress, policies; every check passes', () => {
    const app = new App({ outdir: tempDir('out') });
    const chart = new ComposeVmChart(app, 'legacy', PROPS);
    const manifests = Testing.synth(chart);
    expectManifestsPass(manifests, {
      texts: chart.composeVm.bundle.files().map((f) => ({ name: f.path, content: f.content.toString() })),
    });
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual([
      'DataVolume/legacy-datadisk',
      'DataVolume/legacy-rootdisk',
      'Ingress/app',
      'NetworkPolicy/allow-legacy',
      'NetworkPolicy/allow-legacy-importer',
      'NetworkPolicy/default-allow-dns',
      'NetworkPolicy/default-deny',
      'Secret/legacy-app-secrets',
      'Service/agent',
      'Service/app',
      'VirtualMachine/legacy',
    ]);
    expect(manifests.every((m) => m.metadata.namespace === 'legacy')).toBe(true);
    const ingress = manifests.find((m) => m.kind === 'Ingress');
    expect(ingress.spec.rules[0].http.paths[0].backend.service).toEqual({ name: 'app', port: { number: 80 } });
    // The ingress controller reaches the VM port behind the Service.
    const policy = manifests.find((m) => m.metadata.name === 'allow-legacy');
    expect(JSON.stringify(policy.spec.ingress)).toContain(
      '"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"ingress-nginx"}}',
    );
    // CDI's importer fetches the image through the default deny.
    expect(manifests.find((m) => m.metadata.name === 'allow-legacy-importer').spec.egress).toEqual([
      { to: [{ ipBlock: { cidr: '0.0.0.0/0' } }], ports: [{ port: 443, protocol: 'TCP' }] },
      { to: [{ ipBlock: { cidr: '::/0' } }], ports: [{ port: 443, protocol: 'TCP' }] },
    ]);

    expect(GoldenImageBundle.synthesizeAll(app)).toContain('golden-image/legacy/packer.json');
    expect(fs.existsSync(path.join(app.outdir, 'golden-image/legacy/app/compose.yaml'))).toBe(true);
  });

  test('without policies, for a namespace whose policies another chart renders', () => {
    const chart = new ComposeVmChart(Testing.app(), 'legacy', { ...PROPS, networkPolicies: false, ingress: undefined });
    expect(Testing.synth(chart).some((m) => m.kind === 'NetworkPolicy')).toBe(false);
    expect(chart.networkPolicies).toBeUndefined();
  });

  describe('fails when', () => {
    test('both or neither of model and composeFile are given', () => {
      expect(() => new ComposeVmChart(Testing.app(), 'legacy', { ...PROPS, composeFile: undefined })).toThrow(
        'ComposeVmChart legacy: give exactly one of model and composeFile. Fix: pass the loaded model, or the compose file to load.',
      );
    });

    test('the Ingress names a port the service does not have', () => {
      expect(
        () => new ComposeVmChart(Testing.app(), 'legacy', { ...PROPS, ingress: { service: 'app', port: 443 } }),
      ).toThrow(
        'ComposeVmChart legacy: the Ingress needs a TCP port of service "app" in the VM (got 443). Allowed: 80, 81.',
      );
    });
  });
});
