import { checkManifests, expectManifestsPass } from './checks';
import { sampleManifests } from './sample-manifests';
import { findDoc } from './yaml-docs';

describe('checkManifests', () => {
  test('passes the clean sample', () => {
    expect(checkManifests(sampleManifests())).toEqual({ problems: [], warnings: [] });
    expect(expectManifestsPass(sampleManifests())).toEqual([]);
  });

  test('reports schema, Kubernetes and safety problems in that order, and the warnings apart', () => {
    const docs = sampleManifests();
    const web = findDoc(docs, 'Deployment', 'web');
    web.spec.template.spec.containers[0].imagePullpolicy = 'Always';
    web.spec.template.spec.containers[0].image = 'nginx';
    web.spec.selector.matchLabels.tier = 'backend';
    web.spec.template.spec.automountServiceAccountToken = true;
    const { problems, warnings } = checkManifests(docs, { allowServiceAccountToken: [] });
    expect(problems.map((p) => p.path)).toEqual([
      'spec.template.spec.containers[0].imagePullpolicy',
      'spec.selector',
      'spec.template.spec.automountServiceAccountToken',
    ]);
    expect(warnings.map((w) => w.path)).toEqual(['spec.template.spec.containers[0].image']);
    expect(() => expectManifestsPass(docs)).toThrow(
      /^manifest checks: 3 problems\n {2}Deployment\/web: spec\.template\.spec\.containers\[0\]\.imagePullpolicy: unknown field "imagePullpolicy"\n/,
    );
    expect(checkManifests(docs, { allowServiceAccountToken: ['web'] }).problems).toHaveLength(2);
  });
});
