import { Testing } from 'cdk8s';
import { KUBEVIRT_VERSION } from '../../lib/vm/versions';
import { ReferencePlatformChart } from '../../lib/reference-platform-chart';
import { expectManifestsPass } from '../support/checks';

const chart = new ReferencePlatformChart(Testing.app(), 'platform');
const docs = Testing.synth(chart);

test('the KubeVirt CR in namespace kubevirt and the cluster-scoped CDI CR, valid against their CRDs', () => {
  expect(docs.map((d) => `${d.apiVersion} ${d.kind}/${d.metadata.name} ${d.metadata.namespace ?? '-'}`)).toEqual([
    'kubevirt.io/v1 KubeVirt/kubevirt kubevirt',
    'cdi.kubevirt.io/v1beta1 CDI/cdi -',
  ]);
  expectManifestsPass(docs);
});

test("the platform of the pinned release, with the gates the runbook's snapshot and export need", () => {
  expect(chart.platform.version).toBe(KUBEVIRT_VERSION);
  expect(docs[0].spec.configuration.developerConfiguration.featureGates).toEqual(['Snapshot', 'VMExport']);
});
