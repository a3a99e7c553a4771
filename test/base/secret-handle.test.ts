import { Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { KubeSecret } from '../../imports/k8s';
import { secretHandle } from '../../lib/base/secret-handle';
import { findDoc } from '../support/yaml-docs';

test('the handle reads the Secret it was built from: env values and volumes name that object', () => {
  const chart = new Chart(Testing.app(), 'test');
  const secret = new KubeSecret(chart, 'Secret', {
    metadata: { name: 'web-env' },
    type: 'Opaque',
    data: { TOKEN: 'c2VjcmV0' },
  });
  const handle = secretHandle(chart, 'SecretRef', secret);
  const deployment = new kplus.Deployment(chart, 'Deployment', {
    metadata: { name: 'web' },
    containers: [
      {
        name: 'web',
        image: 'nginx:1.27',
        envVariables: { TOKEN: kplus.EnvValue.fromSecretValue({ secret: handle, key: 'TOKEN' }) },
      },
    ],
  });
  deployment.containers[0].mount('/run/token', kplus.Volume.fromSecret(chart, 'Volume', handle, { name: 'token' }));
  const docs = Testing.synth(chart);
  const pod = findDoc(docs, 'Deployment', 'web').spec.template.spec;
  expect(pod.containers[0].env).toEqual([
    { name: 'TOKEN', valueFrom: { secretKeyRef: { key: 'TOKEN', name: 'web-env' } } },
  ]);
  expect(pod.volumes).toEqual([{ name: 'token', secret: { secretName: 'web-env' } }]);
  // The object keeps its generated form: base64 data, no stringData, no immutable.
  expect(findDoc(docs, 'Secret', 'web-env')).toEqual({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'web-env' },
    type: 'Opaque',
    data: { TOKEN: 'c2VjcmV0' },
  });
});
