import { loadComposeFromString } from '../../lib/compose/load';
import { DEFAULT_SENSITIVE_NAME_PATTERNS, Redactor, isSensitiveName } from '../../lib/compose/sensitive';
import { SubsetSecrets } from '../../lib/vm/subset-secrets';

const MODEL = loadComposeFromString(
  `
services:
  api:
    image: shop/api:1
    environment:
      DB_PASSWORD: api-pass-1234
      LOG_LEVEL: debug
  worker:
    image: shop/worker:1
    environment:
      DB_PASSWORD: worker-pass-5678
`,
  { env: {} },
).model;

function secrets(secretValues?: Redactor): SubsetSecrets {
  return new SubsetSecrets({
    appDirectory: '/opt/shop',
    services: MODEL.services,
    isSensitive: (env) => isSensitiveName(env.name, DEFAULT_SENSITIVE_NAME_PATTERNS),
    containsSecret: () => false,
    secretValues,
  });
}

describe('SubsetSecrets', () => {
  test('services that disagree on a secret variable get <SERVICE>_<NAME> in .env; plain values stay as they are', () => {
    const s = secrets();
    const [api, worker] = MODEL.services;
    const env = (service: typeof api, name: string) => service.environment.find((e) => e.name === name)!;
    expect(String(s.renderEnv(env(api, 'DB_PASSWORD'), api))).toBe(
      '${API_DB_PASSWORD:?set API_DB_PASSWORD in /opt/shop/.env}',
    );
    expect(String(s.renderEnv(env(worker, 'DB_PASSWORD'), worker))).toBe(
      '${WORKER_DB_PASSWORD:?set WORKER_DB_PASSWORD in /opt/shop/.env}',
    );
    expect(s.renderEnv(env(api, 'LOG_LEVEL'), api)).toBe('debug');
    expect(s.env).toEqual({ API_DB_PASSWORD: 'api-pass-1234', WORKER_DB_PASSWORD: 'worker-pass-5678' });
    expect(s.operatorInputs().map((i) => i.name)).toEqual(['API_DB_PASSWORD', 'WORKER_DB_PASSWORD']);
  });

  test('escapeDollars escapes $ and turns a secret inside a string into a SECRET_<n> reference', () => {
    const values = new Redactor();
    values.add('r3dis-s3cret-value');
    const s = secrets(values);
    expect(
      s.escapeDollars({ command: ['redis-server', '--requirepass r3dis-s3cret-value'], note: 'costs $5' }, ''),
    ).toEqual({
      command: ['redis-server', '--requirepass ${SECRET_1:?set SECRET_1 in /opt/shop/.env}'],
      note: 'costs $$5',
    });
    expect(s.env).toEqual({ SECRET_1: 'r3dis-s3cret-value' });
    expect(s.operatorInputs()).toEqual([{ kind: 'env', name: 'SECRET_1', usedBy: ['command[1]'] }]);
  });

  test('a secret file is recorded for delivery and as an operator input, its content only when known', () => {
    const s = secrets();
    s.addFile(
      'secrets/db_password',
      { path: 'db_password.txt', text: 'pw-123456789', binary: false },
      'secrets.db_password',
    );
    s.addFile('secrets/outside', undefined, 'secrets.outside');
    expect(Object.keys(s.files)).toEqual(['secrets/db_password']);
    expect(s.operatorInputs().map((i) => `${i.kind}:${i.name}`)).toEqual([
      'file:secrets/db_password',
      'file:secrets/outside',
    ]);
  });
});
