import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { KubeSecret } from '../../../imports/k8s';
import { ComposeApp } from '../../../lib/app/compose-app';
import { loadComposeFromString } from '../../../lib/compose/load';
import { findDoc } from '../../support/yaml-docs';
import { podSpec } from '../app-fixture';

describe('the mounts of a service read the objects that hold the files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-mounts-'));
  fs.writeFileSync(path.join(dir, 'token.txt'), 'mount-secret-42\n');
  fs.writeFileSync(path.join(dir, 'app.yml'), 'level: debug\n');
  fs.writeFileSync(path.join(dir, 'db.yml'), 'password: mount-secret-42\n');
  const text = `
services:
  web:
    image: nginx:1.27
    secrets: [token, { source: vault, target: /etc/vault }]
    configs: [{ source: app, target: /etc/app.yml }, { source: db, target: /etc/db.yml }, { source: shared, target: /etc/shared }]
secrets:
  token: { file: ./token.txt }
  vault: { external: true, name: vault-token }
configs:
  app: { file: ./app.yml }
  db: { file: ./db.yml }
  shared: { external: true }
`;
  const chart = new Chart(Testing.app(), 'test');
  const app = new ComposeApp(chart, 'app', {
    model: loadComposeFromString(text, { env: {}, projectDir: dir, projectName: 'test' }).model,
  });
  const docs = Testing.synth(chart);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const volumes = podSpec(findDoc(docs, 'Deployment', 'web')).volumes as any[];
  const volumeOf = (mountPath: string) => {
    const container = podSpec(findDoc(docs, 'Deployment', 'web')).containers[0];
    const name = container.volumeMounts.find((m: any) => m.mountPath === mountPath).name;
    return volumes.find((v) => v.name === name);
  };

  test("a compose secret: the volume reads the app's Secret object", () => {
    expect(volumeOf('/run/secrets/token').secret.secretName).toBe(app.secrets.token.name);
  });

  test('a config: the ConfigMap object; a config holding a secret value: the Secret object made for it', () => {
    expect(volumeOf('/etc/app.yml').configMap.name).toBe(app.configs.app.name);
    expect(app.configs.db).toBeInstanceOf(KubeSecret);
    expect(volumeOf('/etc/db.yml').secret.secretName).toBe(app.configs.db.name);
  });

  test('external secrets and configs are references by the name the cluster has', () => {
    expect(volumeOf('/etc/vault').secret.secretName).toBe('vault-token');
    expect(volumeOf('/etc/shared').configMap.name).toBe('shared');
    expect(docs.filter((d) => d.metadata.name === 'vault-token' || d.metadata.name === 'shared')).toEqual([]);
  });
});

describe('a read-only bind of a folder that does not exist', () => {
  test('is an empty emptyDir, and the warning says how to mount the files instead', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-mounts-'));
    const text = 'services:\n  web:\n    image: nginx:1.27\n    volumes: ["./conf.d:/etc/nginx/conf.d:ro"]\n';
    const chart = new Chart(Testing.app(), 'test');
    const app = new ComposeApp(chart, 'app', {
      model: loadComposeFromString(text, { env: {}, projectDir: dir, projectName: 'test' }).model,
    });
    const volumes = podSpec(findDoc(Testing.synth(chart), 'Deployment', 'web')).volumes;
    expect(volumes).toContainEqual({ name: 'bind-etc-nginx-conf-d', emptyDir: {} });
    expect(ComposeApp.warningsOf(app).join('\n')).toContain(
      'bind mount "./conf.d" does not exist; /etc/nginx/conf.d becomes an empty emptyDir, as docker would create ' +
        'an empty directory; if the app needs files there, create the folder with them and convert again',
    );
  });
});
