import { Cron, Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeError } from '../compose/errors';
import { joinDnsLabel } from '../base/naming';
import { capability, pullPolicyFor } from '../base/pod-defaults';
import { LabelledCronJob } from '../base/labelled-workloads';
import { DatabaseEngine } from './engine';

/** Where backups are written inside the backup container. */
export const BACKUP_MOUNT_PATH = '/backup';

/** Options of a database's backup, as `StatefulDependencyProps.backup` takes them. */
export interface DatabaseBackupOptions {
  /**
   * When to take a backup (the CronJob's `schedule`).
   * @default - every day at 03:00 (`0 3 * * *`, in the controller's time zone)
   */
  readonly schedule?: Cron;
  /**
   * How many backups to keep; older ones are deleted after each successful backup.
   * @default 7
   */
  readonly keep?: number;
  /**
   * Size of the backup claim.
   * @default Size.gibibytes(10)
   */
  readonly storageSize?: Size;
  /**
   * Storage class of the backup claim.
   * @default - the cluster's default storage class
   */
  readonly storageClassName?: string;
  /**
   * Requests and limits of the backup container.
   * @default - requests 100m cpu and 128Mi memory, limits 500m cpu and 512Mi memory
   */
  readonly resources?: kplus.ContainerResources;
}

/** Props of `DatabaseBackup`: the backup options plus the engine, image and credentials of the database to dump. */
export interface DatabaseBackupProps extends DatabaseBackupOptions {
  /** The engine to dump; it must support backups (`engine.supportsBackup`). */
  readonly engine: DatabaseEngine;
  /** The image that holds the dump tool: the engine's own image. */
  readonly image: string;
  /** The Service name of the database. */
  readonly host: string;
  /** The database port. */
  readonly port: number;
  /**
   * The Secret that holds the keys `password` and `uri`, as a handle: `StatefulDependency.credentialsSecret`, or
   * `kplus.Secret.fromSecretName(scope, id, name)` for a Secret made elsewhere.
   * @default - no Secret: the database has no password, and `uri` is given
   */
  readonly credentialsSecret?: kplus.ISecret;
  /**
   * The connection string, when there is no credentials Secret.
   * @default - read from the credentials Secret
   */
  readonly uri?: string;
  /**
   * The user the dump connects as.
   * @default - none (the engine's tool uses its own default)
   */
  readonly username?: string;
  /**
   * The database to dump, for engines that dump one.
   * @default - none
   */
  readonly database?: string;
  /** The database's name; the CronJob and the claim are `<name>-backup`. */
  readonly name: string;
  /**
   * `metadata.namespace` of every object made.
   * @default - the chart's namespace
   */
  readonly namespace?: string;
}

const DEFAULT_SCHEDULE = Cron.schedule({ minute: '0', hour: '3' });
const DEFAULT_KEEP = 7;
const DEFAULT_SIZE = Size.gibibytes(10);

/**
 * A backup CronJob (batch/v1) for a database: the engine's dump command, run in the engine's own image against its
 * Service, writes a timestamped file to a backup claim and prunes old files. `restartPolicy: OnFailure`; runs never
 * overlap.
 */
export class DatabaseBackup extends Construct {
  /** The CronJob. */
  public readonly cronJob: kplus.CronJob;
  /** The claim the backups are written to. */
  public readonly claim: kplus.PersistentVolumeClaim;
  /** The labels of the backup's pods: `app: <name>-backup`. */
  public readonly podLabels: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: DatabaseBackupProps) {
    super(scope, id);
    const script = props.engine.backupScript();
    if (script === undefined) {
      throw new ComposeError(`${this.node.path}: the ${props.engine.name} engine has no dump command for a backup`, {
        allowed: 'backups of postgres, mysql, mariadb, mongo, redis, or a generic engine with `backupScript`',
        hint: 'give the generic engine a backupScript, or set `backup: false`',
      });
    }
    const keep = props.keep ?? DEFAULT_KEEP;
    if (!Number.isInteger(keep) || keep < 1) {
      throw new ComposeError(`${this.node.path}: invalid number of backups to keep`, {
        value: keep,
        allowed: 'a whole number of 1 or more',
      });
    }
    const name = joinDnsLabel(props.name, 'backup');
    const metadata = { name, namespace: props.namespace, labels: { app: props.name } };
    this.podLabels = { app: name };

    this.claim = new kplus.PersistentVolumeClaim(this, 'Claim', {
      metadata,
      accessModes: [kplus.PersistentVolumeAccessMode.READ_WRITE_ONCE],
      storage: props.storageSize ?? DEFAULT_SIZE,
      storageClassName: props.storageClassName,
    });

    this.cronJob = new LabelledCronJob(this, 'Resource', {
      metadata,
      podMetadata: { labels: { ...this.podLabels } },
      schedule: props.schedule ?? DEFAULT_SCHEDULE,
      concurrencyPolicy: kplus.ConcurrencyPolicy.FORBID,
      // kplus's 10 s would skip a run whenever the controller is briefly late.
      startingDeadline: Duration.minutes(10),
      restartPolicy: kplus.RestartPolicy.ON_FAILURE,
      automountServiceAccountToken: false,
      securityContext: { ensureNonRoot: false },
      containers: [
        backupContainer(props, backupCommand(props, script, keep), {
          path: BACKUP_MOUNT_PATH,
          volume: kplus.Volume.fromPersistentVolumeClaim(this, 'Volume', this.claim, { name: 'backup' }),
        }),
      ],
    });
  }
}

/** Where the database is and how to log in: `DB_HOST`, `DB_PORT`, then `DB_DATABASE`, `DB_USERNAME`, `DB_PASSWORD`,
 * `DB_URI`. */
function backupEnvironment(props: DatabaseBackupProps): Record<string, kplus.EnvValue> {
  const env: Record<string, kplus.EnvValue> = {
    DB_HOST: kplus.EnvValue.fromValue(props.host),
    DB_PORT: kplus.EnvValue.fromValue(String(props.port)),
  };
  if (props.database !== undefined) {
    env.DB_DATABASE = kplus.EnvValue.fromValue(props.database);
  }
  if (props.username !== undefined) {
    env.DB_USERNAME = kplus.EnvValue.fromValue(props.username);
  }
  if (props.credentialsSecret !== undefined) {
    env.DB_PASSWORD = kplus.EnvValue.fromSecretValue({ secret: props.credentialsSecret, key: 'password' });
    env.DB_URI = kplus.EnvValue.fromSecretValue({ secret: props.credentialsSecret, key: 'uri' });
  } else if (props.uri !== undefined) {
    env.DB_URI = kplus.EnvValue.fromValue(props.uri);
  }
  return env;
}

/** The shell script: a timestamped dump to the claim, then the pruning of all but the newest `keep`. */
function backupCommand(props: DatabaseBackupProps, script: string, keep: number): string {
  const prefix = `${BACKUP_MOUNT_PATH}/${props.name}-`;
  const pattern = `${prefix}*.${props.engine.backupExtension}`;
  return [
    'set -eu',
    `BACKUP_FILE="${prefix}$(date -u +%Y%m%dT%H%M%SZ).${props.engine.backupExtension}"`,
    'export BACKUP_FILE',
    `echo "backing up ${props.engine.name} at $DB_HOST:$DB_PORT to $BACKUP_FILE"`,
    script,
    `echo "backup written; keeping the newest ${keep}"`,
    `ls -1t ${pattern} | tail -n +${keep + 1} | xargs -r rm -f --`,
  ].join('\n');
}

/** The backup container: the engine's own image running the script, with the claim mounted at `BACKUP_MOUNT_PATH`. */
function backupContainer(props: DatabaseBackupProps, command: string, mount: kplus.VolumeMount): kplus.ContainerProps {
  return {
    name: 'backup',
    image: props.image,
    imagePullPolicy: pullPolicyFor(props.image),
    command: ['sh', '-c', command],
    envVariables: backupEnvironment(props),
    resources: props.resources ?? {
      cpu: { request: kplus.Cpu.millis(100), limit: kplus.Cpu.millis(500) },
      memory: { request: Size.mebibytes(128), limit: Size.mebibytes(512) },
    },
    // The engine images run their tools as root; the dump only reads the network and writes the claim.
    securityContext: {
      ensureNonRoot: false,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: [capability('ALL')] },
    },
    volumeMounts: [mount],
  };
}
