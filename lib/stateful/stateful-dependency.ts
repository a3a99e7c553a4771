import { Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeSecret } from '../../imports/k8s';
import { ComposeError } from '../compose/errors';
import { isServiceName, joinDnsLabel, portName, toServiceName } from '../base/naming';
import { POD_SECURITY_CONTEXT, pullPolicyFor } from '../base/pod-defaults';
import { LabelledDeployment, LabelledStatefulSet } from '../base/labelled-workloads';
import { DatabaseBackup, DatabaseBackupOptions } from './database-backup';
import { DatabaseCredentials, DatabaseEngine, EngineKind } from './engine';
import { sortedRecord } from '../util/sort';

/** The controller that runs a stateful dependency; the values are the Kubernetes kinds. */
export enum WorkloadController {
  /** A Deployment with 1 replica and the `Recreate` strategy: the old pod lets go of the claim first. */
  DEPLOYMENT = 'Deployment',
  /** A StatefulSet with 1 replica, addressed through the dependency's Service. */
  STATEFUL_SET = 'StatefulSet',
}

/** Props of `StatefulDependency`: the engine, image, credentials, storage and controller of one database or cache. */
export interface StatefulDependencyProps {
  /**
   * The engine.
   * @default - detected from `image`; an error when the image is not a known official engine image
   */
  readonly engine?: DatabaseEngine;
  /**
   * The container image.
   * @default - the engine's default image (`postgres:16`, `mysql:8.0`, `mariadb:11`, `mongo:7`, `redis:7`)
   */
  readonly image?: string;
  /**
   * The name of the workload, the Service and the prefix of the other objects; a DNS-1035 label.
   * @default - the construct id as a DNS-1035 label
   */
  readonly name?: string;
  /**
   * `metadata.namespace` of every object made.
   * @default - the chart's namespace
   */
  readonly namespace?: string;
  /**
   * The port clients use, on the Service and the container.
   * @default - the engine's port
   */
  readonly port?: number;
  /**
   * The controller.
   * @default WorkloadController.DEPLOYMENT
   */
  readonly controller?: WorkloadController;
  /**
   * The credentials; the password and the connection string are kept in the `<name>-credentials` Secret. They
   * configure the engine through its variables
   * (`POSTGRES_USER`, `POSTGRES_PASSWORD`, …) unless `env` already sets that variable or its `*_FILE` form.
   * @default - the engine's defaults, no password
   */
  readonly credentials?: DatabaseCredentials;
  /**
   * More environment for the engine's container.
   * @default - none
   */
  readonly env?: Readonly<Record<string, kplus.EnvValue>>;
  /**
   * `command` of the container (the image's entrypoint when unset).
   * @default - the image's entrypoint
   */
  readonly command?: readonly string[];
  /**
   * `args` of the container.
   * @default - the image's command
   */
  readonly args?: readonly string[];
  /**
   * Requests and limits of the container.
   * @default - requests 250m cpu and 256Mi memory, limits 1 cpu and 1Gi memory
   */
  readonly resources?: kplus.ContainerResources;
  /**
   * The container's security context. The official images start as root to own their data directory, then drop to
   * their own user, so the default does not force non-root and keeps the root filesystem writable.
   * @default - runAsNonRoot false, readOnlyRootFilesystem false, allowPrivilegeEscalation false, not privileged
   */
  readonly securityContext?: kplus.ContainerSecurityContextProps;
  /**
   * The readiness probe, or `false` for none.
   * @default - the engine's own check (`pg_isready`, `mysqladmin ping`, `mongosh` ping, `redis-cli ping`) every 10 s
   */
  readonly readiness?: kplus.Probe | false;
  /**
   * The liveness probe.
   * @default - none: restarting a database that is slow to answer makes things worse
   */
  readonly liveness?: kplus.Probe;
  /**
   * A startup probe.
   * @default - none
   */
  readonly startup?: kplus.Probe;
  /**
   * An existing claim for the data, e.g. the claim of a compose named volume.
   * @default - a new `<name>-data` claim of `storageSize`
   */
  readonly dataClaim?: kplus.IPersistentVolumeClaim;
  /**
   * Size of the new data claim.
   * @default Size.gibibytes(10)
   */
  readonly storageSize?: Size;
  /**
   * Storage class of the new data claim and of the backup claim.
   * @default - the cluster's default storage class
   */
  readonly storageClassName?: string;
  /**
   * The backup CronJob, or `false` for none.
   * @default - a daily backup at 03:00, keeping 7, when the engine has a dump command
   */
  readonly backup?: DatabaseBackupOptions | false;
  /**
   * Grace period before the container is killed on shutdown.
   * @default Duration.seconds(30)
   */
  readonly terminationGracePeriod?: Duration;
  /**
   * The image pull policy.
   * @default - `Always` for `:latest` or no tag, else `IfNotPresent` (what Kubernetes itself would choose)
   */
  readonly imagePullPolicy?: kplus.ImagePullPolicy;
  /**
   * The Secret with the registry credentials (`imagePullSecrets`).
   * @default - none
   */
  readonly imagePullSecret?: string;
  /**
   * The pod's `fsGroup`: the group that owns the mounted volumes.
   * @default - none
   */
  readonly fsGroup?: number;
}

const DEFAULT_STORAGE = Size.gibibytes(10);
// Only what is secret goes into the Secret: a user or database name in a Secret would make every other mention of
// it (a namespace, a label) look like a leak.
const SECRET_KEYS = ['password', 'uri'] as const;

/**
 * A database or cache (postgres, mysql, mariadb, mongo, redis, or a generic engine) run for an application: one
 * replica on a ReadWriteOnce claim at the engine's data path, its credentials in a Secret, the engine's readiness
 * check, a ClusterIP Service, and a backup CronJob.
 */
export class StatefulDependency extends Construct {
  public readonly engine: DatabaseEngine;
  /** The Deployment or StatefulSet. */
  public readonly workload: kplus.Deployment | kplus.StatefulSet;
  /** The engine's container, e.g. to add environment or mounts. */
  public readonly container: kplus.Container;
  /** The ClusterIP Service clients connect to. */
  public readonly service: kplus.Service;
  /** The name clients connect to (the Service's name). */
  public readonly serviceName: string;
  /** The port clients connect to. */
  public readonly port: number;
  /**
   * The `<name>-credentials` Secret with the keys `password` and `uri` (the connection string); none when the
   * database has no password, as nothing about it is then secret.
   */
  public readonly credentials?: KubeSecret;
  /** The connection string with the password, as a plain string: only ever put it into a Secret. */
  public readonly connectionUri: string;
  /** The user clients and backups connect as, if the engine has users. */
  public readonly username?: string;
  /** The database clients and backups use, if the engine names one. */
  public readonly database?: string;
  /** The connection string as an env value: read from the credentials Secret, or plain without a password. */
  public readonly connectionString: kplus.EnvValue;
  /** The claim holding the data. */
  public readonly dataClaim: kplus.IPersistentVolumeClaim;
  /** The backup, unless disabled or not supported by the engine. */
  public readonly backup?: DatabaseBackup;

  constructor(scope: Construct, id: string, props: StatefulDependencyProps = {}) {
    super(scope, id);
    const image = props.image ?? props.engine?.defaultImage;
    const engine = props.engine ?? (image ? DatabaseEngine.detect(image) : undefined);
    if (!engine) {
      throw new ComposeError(`${this.node.path}: cannot tell the database engine`, {
        value: image,
        allowed: 'an official postgres, mysql, mariadb, mongo or redis image, or an explicit `engine`',
        hint: 'set `engine` (for example DatabaseEngine.POSTGRES, or DatabaseEngine.generic({...}))',
      });
    }
    if (!image) {
      throw new ComposeError(`${this.node.path}: the ${engine.name} engine has no default image`, {
        hint: 'set `image`',
      });
    }
    this.engine = engine;
    const name = props.name ?? toServiceName(id);
    if (!isServiceName(name)) {
      throw new ComposeError(`${this.node.path}: invalid name`, {
        value: name,
        allowed: 'a DNS-1035 label (it names the Service): lower case letters, digits and "-", 1-63 characters, '
          + 'starting with a letter and ending alphanumeric',
      });
    }
    this.port = props.port ?? engine.port;
    if (!Number.isInteger(this.port) || this.port < 1 || this.port > 65535) {
      throw new ComposeError(`${this.node.path}: invalid port`, { value: this.port, allowed: 'a port number 1-65535' });
    }
    this.serviceName = name;
    const namespace = props.namespace;
    const labels = { app: name };
    const metadata = (objectName: string) => ({ name: objectName, namespace, labels });

    const credentials = engine.withDefaults(props.credentials);
    this.username = credentials.username;
    this.database = credentials.database;
    this.connectionUri = engine.connectionUri(name, this.port, credentials);
    let secretRef: kplus.ISecret | undefined;
    if (credentials.password !== undefined) {
      const data = { password: credentials.password, uri: this.connectionUri };
      this.credentials = new KubeSecret(this, 'Credentials', {
        metadata: metadata(joinDnsLabel(name, 'credentials')),
        type: 'Opaque',
        data: Object.fromEntries(SECRET_KEYS.map((key) => [key, Buffer.from(data[key]).toString('base64')])),
      });
      secretRef = kplus.Secret.fromSecretName(this, 'CredentialsRef', this.credentials.name);
      this.connectionString = kplus.EnvValue.fromSecretValue({ secret: secretRef, key: 'uri' });
    } else {
      this.connectionString = kplus.EnvValue.fromValue(this.connectionUri);
    }

    this.dataClaim = props.dataClaim ?? new kplus.PersistentVolumeClaim(this, 'Data', {
      metadata: metadata(joinDnsLabel(name, 'data')),
      accessModes: [kplus.PersistentVolumeAccessMode.READ_WRITE_ONCE],
      storage: props.storageSize ?? DEFAULT_STORAGE,
      storageClassName: props.storageClassName,
    });

    // Variables the caller sets (a compose file's own POSTGRES_PASSWORD, or its *_FILE form) win over the Secret.
    const given = props.env ?? {};
    const givenKeys = new Set(engine.credentialVariables
      .filter((variable) => variable.name in given || `${variable.name}_FILE` in given)
      .map((variable) => variable.key));
    const env: Record<string, kplus.EnvValue> = {};
    for (const setting of engine.credentialEnvironment(props.credentials ?? {})) {
      if (setting.name in given || (setting.key && givenKeys.has(setting.key))) {
        continue;
      }
      env[setting.name] = setting.key === 'password' && secretRef
        ? kplus.EnvValue.fromSecretValue({ secret: secretRef, key: 'password' })
        : kplus.EnvValue.fromValue(setting.key ? credentials[setting.key]! : setting.value ?? '');
    }
    for (const [variable, value] of Object.entries(engine.dataEnv)) {
      if (!(variable in given)) {
        env[variable] = kplus.EnvValue.fromValue(value);
      }
    }
    Object.assign(env, given);

    const readinessCommand = engine.readinessCommand(this.port);
    const readiness = props.readiness === false ? undefined : props.readiness ?? (readinessCommand
      ? kplus.Probe.fromCommand(readinessCommand, {
        periodSeconds: Duration.seconds(10),
        timeoutSeconds: Duration.seconds(5),
        failureThreshold: 6,
      })
      : kplus.Probe.fromTcpSocket({ port: this.port, periodSeconds: Duration.seconds(10) }));

    const containerProps: kplus.ContainerProps = {
      name: name,
      image,
      imagePullPolicy: props.imagePullPolicy ?? pullPolicyFor(image),
      command: props.command ? [...props.command] : undefined,
      args: props.args ? [...props.args] : defaultArgs(engine, env),
      ports: [{ number: this.port, name: portName('tcp', this.port) }],
      envVariables: sortedRecord(env),
      resources: props.resources ?? {
        cpu: { request: kplus.Cpu.millis(250), limit: kplus.Cpu.units(1) },
        memory: { request: Size.mebibytes(256), limit: Size.gibibytes(1) },
      },
      securityContext: props.securityContext ?? {
        ensureNonRoot: false,
        readOnlyRootFilesystem: false,
        allowPrivilegeEscalation: false,
        privileged: false,
      },
      readiness,
      liveness: props.liveness,
      startup: props.startup,
      volumeMounts: [{
        path: engine.dataPath,
        subPath: engine.dataSubPath,
        volume: kplus.Volume.fromPersistentVolumeClaim(this, 'DataVolume', this.dataClaim, { name: 'data' }),
      }],
    };

    this.service = new kplus.Service(this, 'Service', {
      metadata: metadata(name),
      type: kplus.ServiceType.CLUSTER_IP,
      ports: [{ port: this.port, targetPort: this.port, name: portName('tcp', this.port) }],
    });
    this.service.selectLabel('app', name);

    const podProps = {
      metadata: metadata(name),
      replicas: 1,
      podMetadata: { labels },
      containers: [containerProps],
      automountServiceAccountToken: false,
      securityContext: { ...POD_SECURITY_CONTEXT, fsGroup: props.fsGroup },
      terminationGracePeriod: props.terminationGracePeriod,
      dockerRegistryAuth: props.imagePullSecret ? kplus.Secret.fromSecretName(this, 'ImagePullSecret', props.imagePullSecret) : undefined,
    };
    if ((props.controller ?? WorkloadController.DEPLOYMENT) === WorkloadController.STATEFUL_SET) {
      this.workload = new LabelledStatefulSet(this, 'Resource', { ...podProps, service: this.service });
    } else {
      this.workload = new LabelledDeployment(this, 'Resource', { ...podProps, strategy: kplus.DeploymentStrategy.recreate() });
    }
    this.container = this.workload.containers[0];

    if (props.backup !== false && engine.supportsBackup) {
      this.backup = new DatabaseBackup(this, 'Backup', {
        ...(props.backup ?? {}),
        storageClassName: props.backup?.storageClassName ?? props.storageClassName,
        engine,
        image,
        host: name,
        port: this.port,
        credentialsSecretName: this.credentials?.name,
        uri: this.credentials ? undefined : this.connectionUri,
        username: this.username,
        database: this.database,
        name,
        namespace,
      });
    }
  }
}

/** redis takes its password as an argument, not a variable: pass the one StatefulDependency set. */
function defaultArgs(engine: DatabaseEngine, env: Record<string, kplus.EnvValue>): string[] | undefined {
  if (engine.kind === EngineKind.REDIS && 'REDIS_PASSWORD' in env) {
    return ['redis-server', '--requirepass', '$(REDIS_PASSWORD)'];
  }
  return undefined;
}
