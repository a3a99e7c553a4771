import { findDoc } from '../../support/yaml-docs';
import { mainContainer, secretData, synthApp } from '../app-fixture';

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

describe('existingSecret and existingCredentialsSecret: Secrets the user creates, so no password is in the chart', () => {
  const compose = `
services:
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: pw-4b1d9e-canary
  api:
    image: example/api:1.0
    command: ["serve", "--token", "tok-77a0c3-canary"]
    environment:
      LOG_LEVEL: info
      API_TOKEN: tok-77a0c3-canary
      DATABASE_URL: postgres://postgres:pw-4b1d9e-canary@db:5432/postgres
    depends_on: [db]
`;
  const { docs } = synthApp(compose, {
    services: {
      api: { existingSecret: 'api-secrets' },
      db: { existingSecret: 'db-secrets', existingCredentialsSecret: 'db-credentials-mine' },
    },
  });
  const text = JSON.stringify(docs);

  test('no Secret is made and no value of one is in any object', () => {
    expect(docs.filter((d) => d.kind === 'Secret')).toEqual([]);
    for (const value of ['pw-4b1d9e-canary', 'tok-77a0c3-canary']) {
      expect(text).not.toContain(value);
      expect(text).not.toContain(Buffer.from(value).toString('base64'));
    }
  });

  test("the env references read the user's Secrets, with the keys the made ones would have had", () => {
    const refs = (name: string) =>
      Object.fromEntries(
        mainContainer(findDoc(docs, 'Deployment', name))
          .env.filter((e: any) => e.valueFrom?.secretKeyRef)
          .map((e: any) => [e.name, e.valueFrom.secretKeyRef]),
      );
    expect(refs('api')).toEqual({
      API_TOKEN: { key: 'API_TOKEN', name: 'api-secrets' },
      DATABASE_URL: { key: 'DATABASE_URL', name: 'api-secrets' },
    });
    expect(mainContainer(findDoc(docs, 'Deployment', 'api')).args).toEqual(['serve', '--token', '$(API_TOKEN)']);
    expect(refs('db')).toEqual({ POSTGRES_PASSWORD: { key: 'POSTGRES_PASSWORD', name: 'db-secrets' } });
    const backup = docs.find((d) => d.kind === 'CronJob');
    for (const e of backup ? mainContainer(backup).env.filter((x: any) => x.valueFrom?.secretKeyRef) : []) {
      expect(e.valueFrom.secretKeyRef.name).toBe('db-credentials-mine');
    }
  });

  test('the same app without them makes the Secrets (the references are the only difference)', () => {
    const made = synthApp(compose).docs;
    expect(made.filter((d) => d.kind === 'Secret').map((d) => d.metadata.name)).toEqual(
      expect.arrayContaining(['api-env', 'db-env']),
    );
    const strip = (all: any[]) =>
      JSON.parse(
        JSON.stringify(all.filter((d) => d.kind !== 'Secret')).replace(
          /"(api-env|db-env|db-credentials|api-secrets|db-secrets|db-credentials-mine)"/g,
          '"SECRET"',
        ),
      );
    expect(strip(docs)).toEqual(strip(made));
  });

  test('snapshot: the chart holds no password', () => {
    expect(docs).toMatchSnapshot();
  });
});
