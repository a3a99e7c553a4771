import { findDoc } from '../support/yaml-docs';
import { mainContainer, secretData, synthApp } from './app-fixture';

describe('secrets everywhere: a value classified secret anywhere appears nowhere outside a Secret', () => {
  const { app, docs } = synthApp(`
services:
  app:
    image: registry.example.com/app:1.0
    environment:
      REDIS_URL: redis://:s3cret-pass@cache:6379/0
  cache:
    image: registry.example.com/redis:7.4
    command: redis-server --requirepass s3cret-pass --appendonly yes
    expose: ["6379"]
    healthcheck:
      test: ["CMD", "redis-cli", "-a", "s3cret-pass", "ping"]
  worker:
    image: registry.example.com/worker:1.0
    environment:
      DB_PASSWORD: "hunter2-long"
    healthcheck:
      test: ["CMD-SHELL", "check --password 'hunter2-long' && echo ok"]
`);

  test('the command reads the password through $(VAR) from the env Secret', () => {
    const cache = findDoc(docs, 'Deployment', 'cache');
    expect(mainContainer(cache).args).toEqual([
      'redis-server',
      '--requirepass',
      '$(CDK8S_COMPOSE_SECRET_1)',
      '--appendonly',
      'yes',
    ]);
    expect(mainContainer(cache).env).toContainEqual({
      name: 'CDK8S_COMPOSE_SECRET_1',
      valueFrom: { secretKeyRef: { key: 'CDK8S_COMPOSE_SECRET_1', name: 'cache-env' } },
    });
    expect(secretData(findDoc(docs, 'Secret', 'cache-env'))).toEqual({ CDK8S_COMPOSE_SECRET_1: 's3cret-pass' });
  });

  test('exec and shell healthchecks read the env variable through sh -c', () => {
    expect(mainContainer(findDoc(docs, 'Deployment', 'cache')).readinessProbe.exec.command).toEqual([
      'sh',
      '-c',
      "'redis-cli' '-a' \"${CDK8S_COMPOSE_SECRET_1}\" 'ping'",
    ]);
    expect(mainContainer(findDoc(docs, 'Deployment', 'worker')).livenessProbe.exec.command).toEqual([
      'sh',
      '-c',
      "check --password ''\"${DB_PASSWORD}\"'' && echo ok",
    ]);
  });

  test('the value is in no other object, and each rewrite is reported without it', () => {
    for (const doc of docs.filter((d) => d.kind !== 'Secret')) {
      expect(JSON.stringify(doc)).not.toContain('s3cret-pass');
      expect(JSON.stringify(doc)).not.toContain('hunter2-long');
    }
    expect(app.warnings.filter((w) => w.code === 'secret-reference').map((w) => w.message)).toEqual([
      'a secret value in the command and healthcheck is read from the Secret "cache-env" through $(CDK8S_COMPOSE_SECRET_1) (the probe runs through sh -c to read it)',
      'a secret value in the healthcheck is read from the Secret "worker-env" through $(DB_PASSWORD) (the probe runs through sh -c to read it)',
    ]);
    expect(app.verify().broken).toBe(0);
  });
});
