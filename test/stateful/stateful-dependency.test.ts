import { Chart, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { DatabaseEngine } from '../../lib/stateful/engine';
import { StatefulDependency, WorkloadController } from '../../lib/stateful/stateful-dependency';
import { ComposeNetworkPolicies } from '../../lib/base/network-policy';
import { expectManifestsPass } from '../support/checks';
import { findDoc, findDocs } from '../support/yaml-docs';

function synth(build: (chart: Chart) => void): any[] {
  const chart = new Chart(Testing.app(), 'test', { namespace: 'data' });
  // Standalone, as a user's chart would: the namespace starts from default-deny like every output.
  new ComposeNetworkPolicies(chart, 'NetworkPolicies');
  build(chart);
  return Testing.synth(chart);
}

function container(doc: any): any {
  return doc.spec.template.spec.containers[0];
}

describe('postgres', () => {
  let db!: StatefulDependency;
  const docs = synth((chart) => {
    db = new StatefulDependency(chart, 'orders-db', {
      engine: DatabaseEngine.POSTGRES,
      credentials: { username: 'orders', password: 'pg-pass-11' },
      storageSize: Size.gibibytes(20),
      storageClassName: 'fast',
    });
    new kplus.Deployment(chart, 'client', {
      containers: [
        {
          image: 'example/client:1',
          envVariables: { DATABASE_URL: db.connectionString },
          securityContext: { ensureNonRoot: false },
        },
      ],
    });
  });

  test('a Deployment with 1 replica and Recreate, selected by app', () => {
    const deployment = findDoc(docs, 'Deployment', 'orders-db');
    expect(deployment.spec).toMatchObject({
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: { app: 'orders-db' } },
    });
    expect(deployment.spec.template.metadata.labels).toEqual({ app: 'orders-db' });
  });

  test('a claim on the data path, with PGDATA in a subdirectory because of lost+found', () => {
    expect(findDoc(docs, 'PersistentVolumeClaim', 'orders-db-data').spec).toMatchObject({
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '20Gi' } },
      storageClassName: 'fast',
    });
    expect(container(findDoc(docs, 'Deployment', 'orders-db')).volumeMounts).toEqual([
      { mountPath: '/var/lib/postgresql/data', name: 'data' },
    ]);
    expect(container(findDoc(docs, 'Deployment', 'orders-db')).env).toContainEqual({
      name: 'PGDATA',
      value: '/var/lib/postgresql/data/pgdata',
    });
  });

  test('the credentials Secret has one kplus handle, which the backup reads by reference', () => {
    expect(db.credentialsSecret?.name).toBe('orders-db-credentials');
    expect(db.credentialsSecret?.name).toBe(db.credentials?.name);
    const backup = findDoc(docs, 'CronJob', 'orders-db-backup').spec.jobTemplate.spec.template.spec.containers[0];
    expect(backup.env.filter((e: any) => e.valueFrom).map((e: any) => [e.name, e.valueFrom.secretKeyRef.name])).toEqual(
      [
        ['DB_PASSWORD', 'orders-db-credentials'],
        ['DB_URI', 'orders-db-credentials'],
      ],
    );
  });

  test('credentials in a Secret configure the engine', () => {
    const secret = findDoc(docs, 'Secret', 'orders-db-credentials');
    expect(secret.type).toBe('Opaque');
    expect(Buffer.from(secret.data.password, 'base64').toString()).toBe('pg-pass-11');
    expect(Buffer.from(secret.data.uri, 'base64').toString()).toBe(
      'postgresql://orders:pg-pass-11@orders-db:5432/orders',
    );
    expect(container(findDoc(docs, 'Deployment', 'orders-db')).env).toEqual([
      { name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' },
      { name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: 'orders-db-credentials', key: 'password' } } },
      { name: 'POSTGRES_USER', value: 'orders' },
    ]);
  });

  test('the engine readiness probe', () => {
    expect(container(findDoc(docs, 'Deployment', 'orders-db')).readinessProbe).toEqual({
      exec: { command: ['sh', '-c', 'pg_isready -h 127.0.0.1 -p 5432 -U "${POSTGRES_USER:-postgres}"'] },
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold: 6,
    });
  });

  test('handles: serviceName, port and a connection string read from the Secret', () => {
    expect(db.serviceName).toBe('orders-db');
    expect(db.port).toBe(5432);
    expect(findDoc(docs, 'Service', 'orders-db').spec.ports).toEqual([
      { name: 'tcp-5432', port: 5432, targetPort: 5432 },
    ]);
    expect(container(docs.find((d) => d.kind === 'Deployment' && d.metadata.name !== 'orders-db')).env).toEqual([
      { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'orders-db-credentials', key: 'uri' } } },
    ]);
  });

  test('a backup CronJob: schedule, pg_dump, the backup claim, OnFailure', () => {
    const cronJob = findDoc(docs, 'CronJob', 'orders-db-backup');
    const spec = cronJob.spec.jobTemplate.spec.template.spec;
    expect(cronJob.spec.schedule).toBe('0 3 * * *');
    expect(spec.restartPolicy).toBe('OnFailure');
    expect(spec.containers[0].command[2]).toContain('pg_dump --host="$DB_HOST"');
    expect(spec.volumes).toEqual([
      { name: 'backup', persistentVolumeClaim: { claimName: 'orders-db-backup', readOnly: false } },
    ]);
    expect(findDoc(docs, 'PersistentVolumeClaim', 'orders-db-backup').spec.storageClassName).toBe('fast');
  });

  test('passes every check', () => {
    expectManifestsPass(docs);
  });
});

describe('other engines and options', () => {
  test('mysql keeps its data in a subdirectory and is probed with mysqladmin', () => {
    const docs = synth(
      (chart) => new StatefulDependency(chart, 'db', { image: 'mysql:8.0', credentials: { password: 'my-pass-12' } }),
    );
    const main = container(findDoc(docs, 'Deployment', 'db'));
    expect(main.volumeMounts).toEqual([{ mountPath: '/var/lib/mysql', name: 'data', subPath: 'mysql' }]);
    expect(main.readinessProbe.exec.command).toEqual([
      'mysqladmin',
      'ping',
      '-h',
      '127.0.0.1',
      '-P',
      '3306',
      '--silent',
    ]);
    expect(main.env).toEqual([
      { name: 'MYSQL_ROOT_PASSWORD', valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'password' } } },
    ]);
    expectManifestsPass(docs);
  });

  test('redis with a password passes it as --requirepass from the Secret', () => {
    const docs = synth(
      (chart) =>
        new StatefulDependency(chart, 'cache', { image: 'redis:7', credentials: { password: 'redis-pass-13' } }),
    );
    expect(container(findDoc(docs, 'Deployment', 'cache')).args).toEqual([
      'redis-server',
      '--requirepass',
      '$(REDIS_PASSWORD)',
    ]);
    expectManifestsPass(docs);
  });

  test('without a password there is no Secret, and the connection string is plain', () => {
    let cache!: StatefulDependency;
    const docs = synth((chart) => {
      cache = new StatefulDependency(chart, 'cache', { engine: DatabaseEngine.REDIS, backup: false });
    });
    expect(findDocs(docs, 'Secret')).toEqual([]);
    expect(findDocs(docs, 'CronJob')).toEqual([]);
    expect(cache.credentials).toBeUndefined();
    expect(cache.credentialsSecret).toBeUndefined();
    expect(cache.connectionUri).toBe('redis://cache:6379/0');
  });

  test("a StatefulSet when the controller option says so, through the dependency's own Service", () => {
    const docs = synth(
      (chart) =>
        new StatefulDependency(chart, 'mongo', {
          image: 'mongo:7',
          controller: WorkloadController.STATEFUL_SET,
          credentials: { username: 'root', password: 'mongo-pass-14' },
        }),
    );
    const sts = findDoc(docs, 'StatefulSet', 'mongo');
    expect(sts.spec).toMatchObject({ replicas: 1, serviceName: 'mongo', selector: { matchLabels: { app: 'mongo' } } });
    expect(findDocs(docs, 'Service').map((s) => s.metadata.name)).toEqual(['mongo']);
    expect(findDoc(docs, 'Service', 'mongo').spec.selector).toEqual({ app: 'mongo' });
    expectManifestsPass(docs);
  });

  test('an existing claim is used instead of a new one', () => {
    const docs = synth(
      (chart) =>
        new StatefulDependency(chart, 'db', {
          engine: DatabaseEngine.POSTGRES,
          dataClaim: kplus.PersistentVolumeClaim.fromClaimName(chart, 'Existing', 'legacy-data'),
          backup: false,
        }),
    );
    expect(findDocs(docs, 'PersistentVolumeClaim')).toEqual([]);
    expect(findDoc(docs, 'Deployment', 'db').spec.template.spec.volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'legacy-data', readOnly: false } },
    ]);
  });

  test('throws when the engine cannot be told', () => {
    expect(() => synth((chart) => new StatefulDependency(chart, 'db', { image: 'example/db:1' }))).toThrow(
      'test/db: cannot tell the database engine (got "example/db:1"). Allowed: an official postgres, mysql, mariadb, mongo or ' +
        'redis image, or an explicit `engine`. Fix: set `engine` (for example DatabaseEngine.POSTGRES, or DatabaseEngine.generic({...})).',
    );
  });

  test('throws for a name that is not a DNS label', () => {
    expect(() =>
      synth((chart) => new StatefulDependency(chart, 'db', { engine: DatabaseEngine.REDIS, name: 'Bad_Name' })),
    ).toThrow('test/db: invalid name (got "Bad_Name"). Allowed: a DNS-1035 label (it names the Service)');
  });
});

describe('existingCredentialsSecret', () => {
  test('no credentials Secret; the password variable, clients and the backup read the keys of the Secret given', () => {
    const chart = new Chart(Testing.app(), 'test');
    const db = new StatefulDependency(chart, 'db', {
      engine: DatabaseEngine.POSTGRES,
      credentials: { username: 'orders', password: 'pw-never-written-31' },
      existingCredentialsSecret: 'orders-db-login',
      backup: {},
    });
    new kplus.Deployment(chart, 'client', {
      containers: [
        {
          image: 'example/client:1',
          envVariables: { DATABASE_URL: db.connectionString },
          securityContext: { ensureNonRoot: false },
        },
      ],
    });
    const docs = Testing.synth(chart);
    expect(docs.filter((d) => d.kind === 'Secret')).toEqual([]);
    expect(db.credentials).toBeUndefined();
    expect(db.credentialsSecret?.name).toBe('orders-db-login');
    expect(JSON.stringify(docs)).not.toContain('pw-never-written-31');
    expect(db.connectionUri).not.toContain('pw-never-written-31');
    const env = (doc: any) => Object.fromEntries(container(doc).env.map((e: any) => [e.name, e.valueFrom ?? e.value]));
    expect(env(findDoc(docs, 'Deployment', 'db'))).toMatchObject({
      POSTGRES_USER: 'orders',
      POSTGRES_PASSWORD: { secretKeyRef: { name: 'orders-db-login', key: 'password' } },
    });
    const client = docs.find((d) => d.kind === 'Deployment' && d.metadata.name !== 'db')!;
    expect(env(client).DATABASE_URL).toEqual({ secretKeyRef: { name: 'orders-db-login', key: 'uri' } });
    const backup = findDocs(docs, 'CronJob')[0];
    expect(env({ spec: backup.spec.jobTemplate.spec })).toMatchObject({
      DB_PASSWORD: { secretKeyRef: { name: 'orders-db-login', key: 'password' } },
      DB_URI: { secretKeyRef: { name: 'orders-db-login', key: 'uri' } },
    });
  });
});
