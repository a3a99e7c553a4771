import { ApiObjectMetadata, Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeSecret } from '../../imports/k8s';
import { ComposeError } from '../compose/errors';
import { isServiceName, joinDnsLabel, portName, toServiceName } from '../base/naming';
import { POD_SECURITY_CONTEXT } from '../base/pod-defaults';
import { LabelledDeployment, LabelledStatefulSet } from '../base/labelled-workloads';
import { CredentialsSecret } from './credentials-secret';
import { DatabaseBackup, DatabaseBackupOptions } from './database-backup';
import { engineContainerProps } from './engine-container';
import { DatabaseCredentials, DatabaseEngine } from './engine';
import { WorkloadController } from './workload-controller';

// The enum lives in a module of its own, which the CLI's option parser loads without cdk8s.
export { WorkloadController };

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
   * A Secret you create, with the keys `password` and `uri` (the connection string), in place of the
   * `<name>-credentials` Secret: none is made and no password is in the output, so the chart can be synthesized and
   * snapshot-tested without one. `credentials.password` is then not used.
   * @default - the `<name>-credentials` Secret, made from `credentials`
   */
  readonly existingCredentialsSecret?: string;
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
   * Keep the data on a claim. `false` keeps it in an emptyDir that lives as long as the pod, as a compose cache
   * without a volume keeps it in its container: no claim, and no backup.
   * @default true
   */
  readonly persistent?: boolean;
  /**
   * An existing claim for the data, e.g. the claim of a compose named volume.
   * @default - a new `<name>-data` claim of `storageSize`
   */
  readonly dataClaim?: kplus.IPersistentVolumeClaim;
  /**
   * Where `dataClaim` is mounted when it is not the engine's data path but a folder above it, as a compose file
   * mounts it (`pgdata:/var/lib/postgresql`, the path postgres 18 images declare): the data directory is then a
   * folder inside the claim, and the image's own data variables (its `PGDATA`) are kept, so data copied from the
   * compose volume is where the engine looks.
   * @default - the engine's data path
   */
  readonly dataMountPath?: string;
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
  /** A kplus handle on `credentials`, for env values that read it; none without a password. */
  public readonly credentialsSecret?: kplus.ISecret;
  /** The connection string with the password, as a plain string: only ever put it into a Secret. */
  public readonly connectionUri: string;
  /** The user clients and backups connect as, if the engine has users. */
  public readonly username?: string;
  /** The database clients and backups use, if the engine names one. */
  public readonly database?: string;
  /** The connection string as an env value: read from the credentials Secret, or plain without a password. */
  public readonly connectionString: kplus.EnvValue;
  /** The claim holding the data; none with `persistent: false`. */
  public readonly dataClaim?: kplus.IPersistentVolumeClaim;
  /** The backup, unless disabled or not supported by the engine. */
  public readonly backup?: DatabaseBackup;

  constructor(scope: Construct, id: string, props: StatefulDependencyProps = {}) {
    super(scope, id);
    const { engine, image } = resolveEngine(this.node.path, props);
    this.engine = engine;
    const name = checkName(this.node.path, props.name ?? toServiceName(id));
    this.port = checkPort(this.node.path, props.port ?? engine.port);
    this.serviceName = name;
    const namespace = props.namespace;
    const labels = { app: name };
    const metadata = (objectName: string) => ({ name: objectName, namespace, labels });

    const credentials = new CredentialsSecret(this, {
      engine,
      host: name,
      port: this.port,
      credentials: props.credentials,
      existingSecret: props.existingCredentialsSecret,
      metadata: metadata(joinDnsLabel(name, 'credentials')),
    });
    this.credentials = credentials.resource;
    this.credentialsSecret = credentials.secret;
    this.username = credentials.resolved.username;
    this.database = credentials.resolved.database;
    this.connectionUri = credentials.connectionUri;
    this.connectionString = credentials.connectionString;

    const persistent = checkPersistence(this.node.path, props);
    checkCredentials(this.node.path, engine, props.credentials);
    this.dataClaim = persistent
      ? (props.dataClaim ?? dataClaim(this, metadata(joinDnsLabel(name, 'data')), props))
      : undefined;
    const containerProps = engineContainerProps(this, {
      ...props,
      engine,
      image,
      name,
      port: this.port,
      dataClaim: this.dataClaim,
      credentials,
    });

    this.service = dependencyService(this, metadata(name), this.port);
    this.workload = dependencyWorkload(this, {
      props,
      metadata: metadata(name),
      labels,
      container: containerProps,
      service: this.service,
    });
    this.container = this.workload.containers[0];

    this.backup = persistent
      ? dependencyBackup(this, props, { engine, image, name, namespace, port: this.port, credentials })
      : undefined;
  }
}

/** The engine's data claim, when the props give none. */
function dataClaim(
  scope: Construct,
  metadata: ApiObjectMetadata,
  props: StatefulDependencyProps,
): kplus.PersistentVolumeClaim {
  return new kplus.PersistentVolumeClaim(scope, 'Data', {
    metadata,
    accessModes: [kplus.PersistentVolumeAccessMode.READ_WRITE_ONCE],
    storage: props.storageSize ?? DEFAULT_STORAGE,
    storageClassName: props.storageClassName,
  });
}

interface DependencyWorkloadInputs {
  readonly props: StatefulDependencyProps;
  readonly metadata: ApiObjectMetadata;
  /** The pods' labels, which the Service selects. */
  readonly labels: Readonly<Record<string, string>>;
  readonly container: kplus.ContainerProps;
  readonly service: kplus.Service;
}

/** One replica of the engine, as a Deployment that recreates its pod (the default) or a StatefulSet. */
function dependencyWorkload(scope: Construct, inputs: DependencyWorkloadInputs): kplus.Deployment | kplus.StatefulSet {
  const { props, metadata, labels, container, service } = inputs;
  const podProps = {
    metadata,
    replicas: 1,
    podMetadata: { labels },
    containers: [container],
    automountServiceAccountToken: false,
    securityContext: { ...POD_SECURITY_CONTEXT, fsGroup: props.fsGroup },
    terminationGracePeriod: props.terminationGracePeriod,
    dockerRegistryAuth: props.imagePullSecret
      ? kplus.Secret.fromSecretName(scope, 'ImagePullSecret', props.imagePullSecret)
      : undefined,
  };
  if ((props.controller ?? WorkloadController.DEPLOYMENT) === WorkloadController.STATEFUL_SET) {
    return new LabelledStatefulSet(scope, 'Resource', { ...podProps, service });
  }
  return new LabelledDeployment(scope, 'Resource', { ...podProps, strategy: kplus.DeploymentStrategy.recreate() });
}

/** The ClusterIP Service clients connect to, on the engine's port, selecting the pods by their `app` label. */
function dependencyService(
  scope: Construct,
  metadata: { readonly name: string; readonly namespace?: string; readonly labels: Record<string, string> },
  port: number,
): kplus.Service {
  const service = new kplus.Service(scope, 'Service', {
    metadata,
    type: kplus.ServiceType.CLUSTER_IP,
    ports: [{ port, targetPort: port, name: portName('tcp', port) }],
  });
  service.selectLabel('app', metadata.name);
  return service;
}

/** The engine, given or detected from the image, and the image, given or the engine's default. */
function resolveEngine(path: string, props: StatefulDependencyProps): { engine: DatabaseEngine; image: string } {
  const image = props.image ?? props.engine?.defaultImage;
  const engine = props.engine ?? (image ? DatabaseEngine.detect(image) : undefined);
  if (!engine) {
    throw new ComposeError(`${path}: cannot tell the database engine`, {
      value: image,
      allowed: 'an official postgres, mysql, mariadb, mongo or redis image, or an explicit `engine`',
      hint: 'set `engine` (for example DatabaseEngine.POSTGRES, or DatabaseEngine.generic({...}))',
    });
  }
  if (!image) {
    throw new ComposeError(`${path}: the ${engine.name} engine has no default image`, {
      hint: 'set `image`',
    });
  }
  return { engine, image };
}

function checkName(path: string, name: string): string {
  if (!isServiceName(name)) {
    throw new ComposeError(`${path}: invalid name`, {
      value: name,
      allowed:
        'a DNS-1035 label (it names the Service): lower case letters, digits and "-", 1-63 characters, ' +
        'starting with a letter and ending alphanumeric',
    });
  }
  return name;
}

/** `persistent`, which leaves no claim for `dataClaim`, `storageSize` or `backup` to apply to. */
function checkPersistence(path: string, props: StatefulDependencyProps): boolean {
  const persistent = props.persistent ?? true;
  const given = [
    props.dataClaim && 'dataClaim',
    props.storageSize && 'storageSize',
    props.backup !== undefined && props.backup !== false && 'backup',
  ].filter((k): k is string => typeof k === 'string');
  if (!persistent && given.length > 0) {
    throw new ComposeError(`${path}: persistent is false, so the data has no claim to size, mount or back up`, {
      value: given.join(', '),
      hint: 'remove persistent: false to keep the data on a claim, or remove those props',
    });
  }
  return persistent;
}

/**
 * A credential given as `undefined` (`password: process.env.DB_PASSWORD` with the variable unset) would silently
 * leave the engine without it: postgres then refuses to start. Leaving the key out is the way to say "none".
 */
function checkCredentials(path: string, engine: DatabaseEngine, credentials: DatabaseCredentials | undefined): void {
  for (const key of ['password', 'username', 'database'] as const) {
    if (credentials && Object.prototype.hasOwnProperty.call(credentials, key) && credentials[key] === undefined) {
      const variables = engine.credentialVariables.filter((v) => v.key === key).map((v) => v.name);
      throw new ComposeError(
        `${path}: credentials.${key} is undefined, so ${engine.name} would get no ${variables.join(' or ') || key}` +
          (key === 'password' ? ` and ${engine.isCache ? 'run without a password' : 'refuse to start'}` : ''),
        {
          hint:
            'it is read from an environment variable that is not set (process.env.X is undefined): set the variable ' +
            `before synth, or fail early with \`process.env.X ?? throwMissing('X')\`; leave out ${key} to use none`,
        },
      );
    }
  }
}

function checkPort(path: string, port: number): number {
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ComposeError(`${path}: invalid port`, { value: port, allowed: 'a port number 1-65535' });
  }
  return port;
}

/**
 * The backup CronJob of a dependency, unless `backup: false` or the engine has no dump command: it reaches the
 * database through its Service and logs in with the credentials Secret, by handle.
 */
function dependencyBackup(
  scope: Construct,
  props: StatefulDependencyProps,
  parts: {
    engine: DatabaseEngine;
    image: string;
    name: string;
    namespace?: string;
    port: number;
    credentials: CredentialsSecret;
  },
): DatabaseBackup | undefined {
  const { engine, name, credentials } = parts;
  if (props.backup === false || !engine.supportsBackup) {
    return undefined;
  }
  return new DatabaseBackup(scope, 'Backup', {
    ...(props.backup ?? {}),
    storageClassName: props.backup?.storageClassName ?? props.storageClassName,
    engine,
    image: parts.image,
    host: name,
    port: parts.port,
    credentialsSecret: credentials.secret,
    uri: credentials.secret ? undefined : credentials.connectionUri,
    username: credentials.resolved.username,
    database: credentials.resolved.database,
    name,
    namespace: parts.namespace,
  });
}
