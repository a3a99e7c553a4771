import { Chart, Cron, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { DatabaseBackup } from '../../lib/stateful/database-backup';
import { DatabaseEngine } from '../../lib/stateful/engine';
import { ComposeNetworkPolicies } from '../../lib/base/network-policy';
import { expectManifestsPass } from '../support/checks';
import { findDoc } from '../support/yaml-docs';

function synth(props: Partial<ConstructorParameters<typeof DatabaseBackup>[2]> = {}): any[] {
  const chart = new Chart(Testing.app(), 'test', { namespace: 'data' });
  new DatabaseBackup(chart, 'Backup', {
    engine: DatabaseEngine.MYSQL,
    image: 'mysql:8.0',
    host: 'db',
    port: 3306,
    name: 'db',
    credentialsSecret: kplus.Secret.fromSecretName(chart, 'DbCredentials', 'db-credentials'),
    username: 'root',
    ...props,
  });
  // Standalone, as a user's chart would: the namespace starts from default-deny like every output.
  new ComposeNetworkPolicies(chart, 'NetworkPolicies');
  return Testing.synth(chart);
}

test('a batch/v1 CronJob with the schedule, the dump command, the backup claim and OnFailure', () => {
  const docs = synth({
    schedule: Cron.schedule({ minute: '30', hour: '1' }),
    keep: 3,
    storageSize: Size.gibibytes(50),
  });
  const cronJob = findDoc(docs, 'CronJob', 'db-backup');
  expect(cronJob.apiVersion).toBe('batch/v1');
  expect(cronJob.spec).toMatchObject({
    schedule: '30 1 * * *',
    concurrencyPolicy: 'Forbid',
    startingDeadlineSeconds: 600,
  });
  const pod = cronJob.spec.jobTemplate.spec.template;
  expect(pod.metadata.labels).toEqual({ app: 'db-backup' });
  expect(pod.spec.restartPolicy).toBe('OnFailure');
  const container = pod.spec.containers[0];
  expect(container.image).toBe('mysql:8.0');
  expect(container.command[2].split('\n')).toEqual([
    'set -eu',
    'BACKUP_FILE="/backup/db-$(date -u +%Y%m%dT%H%M%SZ).sql"',
    'export BACKUP_FILE',
    'echo "backing up mysql at $DB_HOST:$DB_PORT to $BACKUP_FILE"',
    DatabaseEngine.MYSQL.backupScript(),
    'echo "backup written; keeping the newest 3"',
    'ls -1t /backup/db-*.sql | tail -n +4 | xargs -r rm -f --',
  ]);
  expect(container.env).toEqual([
    { name: 'DB_HOST', value: 'db' },
    { name: 'DB_PORT', value: '3306' },
    { name: 'DB_USERNAME', value: 'root' },
    { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'password' } } },
    { name: 'DB_URI', valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'uri' } } },
  ]);
  expect(container.volumeMounts).toEqual([{ mountPath: '/backup', name: 'backup' }]);
  expect(findDoc(docs, 'PersistentVolumeClaim', 'db-backup').spec.resources.requests.storage).toBe('50Gi');
  expectManifestsPass(docs);
});

test('throws for an engine without a dump command', () => {
  expect(() => synth({ engine: DatabaseEngine.generic({ name: 'kv', port: 1, dataPath: '/d' }) })).toThrow(
    'test/Backup: the kv engine has no dump command for a backup. Allowed: backups of postgres, mysql, mariadb, mongo, ' +
      'redis, or a generic engine with `backupScript`. Fix: give the generic engine a backupScript, or set `backup: false`.',
  );
});

test('throws for a keep count below 1', () => {
  expect(() => synth({ keep: 0 })).toThrow(
    'test/Backup: invalid number of backups to keep (got 0). Allowed: a whole number of 1 or more.',
  );
});

test('without a credentials Secret, the connection string given as uri is a plain variable and there is no password', () => {
  const docs = synth({
    credentialsSecret: undefined,
    username: undefined,
    uri: 'redis://cache:6379/0',
    engine: DatabaseEngine.REDIS,
    image: 'redis:7',
  });
  const container = findDoc(docs, 'CronJob', 'db-backup').spec.jobTemplate.spec.template.spec.containers[0];
  expect(container.env).toEqual([
    { name: 'DB_HOST', value: 'db' },
    { name: 'DB_PORT', value: '3306' },
    { name: 'DB_URI', value: 'redis://cache:6379/0' },
  ]);
});
