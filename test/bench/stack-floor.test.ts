import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart } from 'cdk8s';
import { convertedManifests, kindCounts } from '../../bench/floor-input';
import { phaseSeconds } from '../../bench/phases';
import { buildFloor, buildManifests, KindCounts, Manifest } from '../../bench/stack-floor';

/** The kinds and counts of a chart's resolved objects. */
function tally(chart: Chart): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const object of chart.toJson()) {
    counts[object.kind] = (counts[object.kind] ?? 0) + 1;
  }
  return counts;
}

describe('the stack floor', () => {
  test('builds as many objects of each kind as counted, with cdk8s-plus-27 and plain ApiObjects', () => {
    const counts: KindCounts = {
      Namespace: 1,
      ResourceQuota: 1,
      ServiceAccount: 3,
      Role: 3,
      RoleBinding: 3,
      Secret: 5,
      ConfigMap: 4,
      PersistentVolumeClaim: 2,
      Deployment: 6,
      Job: 2,
      CronJob: 1,
      Service: 4,
      Ingress: 2,
      NetworkPolicy: 7,
      GitRepository: 1,
    };
    const chart = new Chart(new App(), 'floor');
    buildFloor(chart, counts);
    expect(tally(chart)).toEqual(counts);
  });

  test('names the kind the counts lack when another kind needs it', () => {
    expect(() => buildFloor(new Chart(new App(), 'floor'), { Deployment: 1, ConfigMap: 1 })).toThrow(
      'stack-floor: the counts hold no Secret, which the workloads, bindings and Services use',
    );
  });
});

describe('the cdk8s floor', () => {
  test('resolves each manifest to itself: cdk8s prints the very content convert wrote', () => {
    const manifests: Manifest[] = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'shop' }, data: { A: '1' } },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
        spec: { replicas: 1, template: { spec: { containers: [{ name: 'web', image: 'nginx', args: ['-g'] }] } } },
      },
    ];
    const chart = new Chart(new App(), 'floor');
    buildManifests(chart, manifests);
    expect(chart.toJson()).toEqual(manifests);
  });
});

describe('the floors’ input', () => {
  test("reads every document of an output's YAML files, not the kustomizations or other files, and counts kinds", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-floor-'));
    try {
      fs.mkdirSync(path.join(dir, '2-app', 'web'), { recursive: true });
      fs.writeFileSync(path.join(dir, '2-app', 'web', 'a-deployment.yaml'), 'apiVersion: apps/v1\nkind: Deployment\n');
      fs.writeFileSync(
        path.join(dir, '2-app', 'web', 'b-objects.yaml'),
        'apiVersion: v1\nkind: Service\nspec:\n  kind: NotAnObject\n---\napiVersion: v1\nkind: Secret\n---\napiVersion: v1\nkind: Service\n',
      );
      fs.writeFileSync(path.join(dir, '2-app', 'kustomization.yaml'), 'kind: Kustomization\n');
      fs.writeFileSync(path.join(dir, 'RUNBOOK.md'), 'kind: Deployment\n');
      const manifests = convertedManifests(dir);
      expect(manifests).toEqual([
        { apiVersion: 'apps/v1', kind: 'Deployment' },
        { apiVersion: 'v1', kind: 'Service', spec: { kind: 'NotAnObject' } },
        { apiVersion: 'v1', kind: 'Secret' },
        { apiVersion: 'v1', kind: 'Service' },
      ]);
      expect(kindCounts(manifests)).toEqual({ Deployment: 1, Secret: 1, Service: 2 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('phaseSeconds', () => {
  test('gives the first mark from the time origin and each other since the one before, in seconds to the ms', () => {
    expect(phaseSeconds({ modules: 412.4, load: 930.6, construct: 931.2, synth: 3500 })).toEqual({
      modules: 0.412,
      load: 0.518,
      construct: 0.001,
      synth: 2.569,
    });
  });
});
