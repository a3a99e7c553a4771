import { Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { CredentialsSecret } from '../../lib/stateful/credentials-secret';
import { DatabaseEngine } from '../../lib/stateful/engine';
import { findDoc, findDocs } from '../support/yaml-docs';

const metadata = { name: 'db-credentials', namespace: 'data', labels: { app: 'db' } };

function build(password?: string): { part: CredentialsSecret; docs: any[]; chart: Chart } {
  const chart = new Chart(Testing.app(), 'test');
  const part = new CredentialsSecret(chart, {
    engine: DatabaseEngine.POSTGRES,
    host: 'db',
    port: 5432,
    metadata,
    credentials: password === undefined ? undefined : { username: 'app', password },
  });
  return { part, docs: Testing.synth(chart), chart };
}

test('with a password: one Secret with base64 data for password and uri only, and a handle on it', () => {
  const { part, docs } = build('pw-21');
  const secret = findDoc(docs, 'Secret', 'db-credentials');
  expect(secret).toEqual({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata,
    data: {
      password: Buffer.from('pw-21').toString('base64'),
      uri: Buffer.from('postgresql://app:pw-21@db:5432/app').toString('base64'),
    },
  });
  expect(part.connectionUri).toBe('postgresql://app:pw-21@db:5432/app');
  expect(part.secret?.name).toBe(part.resource?.name);
  expect(part.given).toEqual({ username: 'app', password: 'pw-21' });
  expect(part.resolved).toMatchObject({ username: 'app', password: 'pw-21', database: 'app' });
});

test('the connection string reads the uri key of the Secret', () => {
  const { part, chart } = build('pw-22');
  new kplus.Deployment(chart, 'client', {
    containers: [{ image: 'client:1', envVariables: { DATABASE_URL: part.connectionString } }],
  });
  const [deployment] = findDocs(Testing.synth(chart), 'Deployment');
  expect(deployment.spec.template.spec.containers[0].env).toEqual([
    { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'uri' } } },
  ]);
});

test('without a password: no Secret, no handle, a plain connection string', () => {
  const { part, docs } = build();
  expect(findDocs(docs, 'Secret')).toEqual([]);
  expect(part.resource).toBeUndefined();
  expect(part.secret).toBeUndefined();
  expect(part.connectionString.value).toBe(part.connectionUri);
});
