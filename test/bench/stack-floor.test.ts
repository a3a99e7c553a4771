import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart } from 'cdk8s';
import { buildFloor, kindCounts, KindCounts } from '../../bench/stack-floor';

/** The kinds and counts of a chart's resolved objects, as kindCounts reads them from files. */
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

  test("counts the kinds of every document of an output's YAML files, not the kustomizations or other files", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-floor-'));
    try {
      fs.mkdirSync(path.join(dir, '2-app', 'web'), { recursive: true });
      fs.writeFileSync(path.join(dir, '2-app', 'web', 'deployment.yaml'), 'apiVersion: apps/v1\nkind: Deployment\n');
      fs.writeFileSync(
        path.join(dir, '2-app', 'web', 'objects.yaml'),
        'kind: Service\nspec:\n  kind: NotAnObject\n---\nkind: Secret\n---\nkind: Service\n',
      );
      fs.writeFileSync(path.join(dir, '2-app', 'kustomization.yaml'), 'kind: Kustomization\n');
      fs.writeFileSync(path.join(dir, 'RUNBOOK.md'), 'kind: Deployment\n');
      expect(kindCounts(dir)).toEqual({ Deployment: 1, Secret: 1, Service: 2 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
