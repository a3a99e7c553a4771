import { findDoc } from '../support/yaml-docs';
import { mainContainer, secretData, synthApp } from './app-fixture';

describe('the environment of a service', () => {
  const { app, docs } = synthApp(`
services:
  api:
    image: example/api:1.0
    command: ["serve", "--token", "s3cr3t-token-value"]
    environment:
      LOG_LEVEL: info
      EMPTY: ""
      API_TOKEN: s3cr3t-token-value
`);
  const api = app.service('api');
  const env = (name: string) => mainContainer(findDoc(docs, 'Deployment', 'api')).env.find((e: any) => e.name === name);

  test('plain values are keys of the env ConfigMap, read through the ConfigMap object', () => {
    expect(env('LOG_LEVEL').valueFrom.configMapKeyRef).toEqual({ key: 'LOG_LEVEL', name: api.envConfigMap!.name });
    expect(findDoc(docs, 'ConfigMap', api.envConfigMap!.name).data).toEqual({ LOG_LEVEL: 'info' });
    expect(env('EMPTY')).toEqual({ name: 'EMPTY', value: '' });
  });

  test('sensitive values are read from the env Secret through the handle of the object made for them', () => {
    const secret = api.envSecret!;
    expect(env('API_TOKEN').valueFrom.secretKeyRef).toEqual({ key: 'API_TOKEN', name: secret.name });
    expect(secretData(findDoc(docs, 'Secret', secret.name))).toEqual({ API_TOKEN: 's3cr3t-token-value' });
  });

  test('a secret in the command is read from the same Secret, and the warning names it', () => {
    expect(mainContainer(findDoc(docs, 'Deployment', 'api')).args).toEqual(['serve', '--token', '$(API_TOKEN)']);
    expect(app.warnings.filter((w) => w.code === 'secret-reference').map((w) => w.message)).toEqual([
      `a secret value in the command is read from the Secret "${api.envSecret!.name}" through $(API_TOKEN)`,
    ]);
  });
});
