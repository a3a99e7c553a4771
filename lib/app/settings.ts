import { Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeError } from '../compose/errors';
import { ComposeLocation, ComposeService } from '../compose/model';
import { DatabaseBackupOptions } from '../stateful/database-backup';
import { AutoscalingSettings } from './service/autoscaler';
import { DatabaseEngine } from '../stateful/engine';
import { WorkloadController } from '../stateful/stateful-dependency';
import { STORAGE_QUANTITY_FORMAT, parseStorageBytes } from '../base/sizes';
import { ServiceTarget } from './target';
import type { ExternalEndpoint } from './external-service';

// The enum lives in a module of its own, which the CLI's option parser loads without cdk8s.
export { ServiceTarget };

/** The service-level extension key this library reads, e.g. `x-cdk8s-compose: { http: true }`. */
export const EXTENSION_KEY = 'x-cdk8s-compose';

/** How a service's published ports are reached from outside the cluster; the values are the `x-` key's strings. */
export enum Exposure {
  /** The HTTP port through an Ingress; other published ports through a LoadBalancer Service. */
  INGRESS = 'ingress',
  /** Every published port through a LoadBalancer Service. */
  LOAD_BALANCER = 'load-balancer',
  /** No external access: published ports stay reachable inside the cluster only. */
  INTERNAL = 'internal',
}

/** A service declared HTTP: its probes and its Ingress port. */
export interface HttpOptions {
  /**
   * The container port that serves HTTP.
   * @default - the first published TCP port, else the first TCP port
   */
  readonly port?: number;
  /**
   * Path of the liveness probe.
   * @default '/health'
   */
  readonly livenessPath?: string;
  /**
   * Path of the readiness probe.
   * @default '/ready'
   */
  readonly readinessPath?: string;
  /**
   * initialDelaySeconds of both probes.
   * @default Duration.seconds(10)
   */
  readonly initialDelay?: Duration;
  /**
   * periodSeconds of both probes.
   * @default Duration.seconds(10)
   */
  readonly period?: Duration;
}

/** Per-service overrides, by compose service name in `ComposeAppProps.services`. */
export interface ServiceOverrides {
  /**
   * The Kubernetes name (Deployment, Service, …), a DNS-1123 label; also the way out of a name collision.
   * @default - the compose name in lower case, with runs of other characters as "-"
   */
  readonly name?: string;
  /**
   * The number of pods.
   * @default - `deploy.replicas`, else 1
   */
  readonly replicas?: number;
  /**
   * The container image, in place of the compose one.
   * @default - the compose image
   */
  readonly image?: string;
  /**
   * Declares the service HTTP: httpGet liveness `/health` and readiness `/ready` probes, and its Ingress port.
   * @default - the `x-cdk8s-compose.http` key, else not HTTP
   */
  readonly http?: boolean | HttpOptions;
  /**
   * How published ports are reached from outside.
   * @default - the exposure rule (README): HTTP ports through an Ingress, others through a LoadBalancer,
   * `127.0.0.1` bindings and stateful dependencies internal
   */
  readonly expose?: Exposure;
  /**
   * Host of the Ingress rule.
   * @default - `kompose.service.expose` when it names a host, else `<name>.<ingressDomain>`
   */
  readonly ingressHost?: string;
  /**
   * Path of the Ingress rule (`pathType: Prefix`).
   * @default '/'
   */
  readonly ingressPath?: string;
  /**
   * Requests and limits of the main container; each one given wins over compose's.
   * @default - `deploy.resources` (or the legacy keys), else `ComposeAppProps.defaultResources` (no limit unless
   * compose sets one or limits are defaulted)
   */
  readonly resources?: kplus.ContainerResources;
  /**
   * Run the service as a stateful dependency of this engine, or `false` to run it as a plain Deployment.
   * @default - detected from the image (official postgres, mysql, mariadb, mongo and redis images), or the
   * `x-cdk8s-compose.engine` key
   */
  readonly engine?: DatabaseEngine | false;
  /**
   * Controller of a stateful dependency.
   * @default - `ComposeAppProps.controller`
   */
  readonly controller?: WorkloadController;
  /**
   * Size of the data claim a stateful dependency gets when compose mounts no named volume at its data path. A cache
   * (redis) that compose gives no volume keeps its data in the pod, as compose keeps it in the container, unless this
   * or a `backup` (the service's or the app's) asks for the claim.
   * @default - `ComposeAppProps.storageSize`
   */
  readonly storageSize?: Size;
  /**
   * Backup of a stateful dependency: `true` (or the backup's options) for one, `false` for none.
   * @default - `ComposeAppProps.backup`
   */
  readonly backup?: DatabaseBackupOptions | boolean;
  /**
   * allowPrivilegeEscalation of the main container.
   * @default - false, true when compose sets `privileged` or adds SYS_ADMIN (Kubernetes requires it then)
   */
  readonly allowPrivilegeEscalation?: boolean;
  /**
   * More variable names to keep in the Secret, on top of the name patterns.
   * @default - none
   */
  readonly sensitiveEnv?: readonly string[];
  /**
   * A Secret you create that holds the service's sensitive environment, in place of its `<service>-env` Secret: the
   * same keys (the variable names), read by the same env references; no env Secret is made and no value of it is in
   * the output.
   * @default - the `<service>-env` Secret, made from the compose environment
   */
  readonly existingSecret?: string;
  /**
   * For a stateful dependency: a Secret you create with the keys `password` and `uri`, in place of its
   * `<service>-credentials` Secret (StatefulDependency's `existingCredentialsSecret`).
   * @default - the `<service>-credentials` Secret, made from the compose environment
   */
  readonly existingCredentialsSecret?: string;
  /**
   * A HorizontalPodAutoscaler for the service, or `false` for none.
   * @default - from the `kompose.hpa.*` labels when any is set, else none
   */
  readonly autoscaling?: AutoscalingSettings | false;
  /**
   * Where the service runs: `ServiceTarget.VM` runs it in the app's golden-image VM, `ServiceTarget.AUTO` there
   * when assessment flags it.
   * @default - the `x-cdk8s-compose.target` key, else `ComposeAppProps.target`
   */
  readonly target?: ServiceTarget;
  /**
   * A managed endpoint (a cloud database, a hosted cache) in place of the service: no workload, claims, backup or
   * waits for it; a Service of its name resolves to the endpoint, so that clients keep `db:5432`
   * (`ExternalService`). The other overrides of the service then apply to nothing.
   * @default - the service runs in the cluster
   */
  readonly external?: ExternalEndpoint;
  /**
   * Copy-up of this service's new named volumes (the image's files at the mount path).
   * @default - `ComposeAppProps.copyUp`
   */
  readonly copyUp?: boolean;
}

/** Per-volume overrides, by top-level compose volume name or bound project folder in `ComposeAppProps.volumes`. */
export interface VolumeOverrides {
  /**
   * The size of the volume's PersistentVolumeClaim.
   * @default - the `kompose.volume.size` label (on the volume, else on a service that mounts it), else
   * `ComposeAppProps.storageSize`
   */
  readonly size?: Size;
  /**
   * The storage class of the volume's PersistentVolumeClaim.
   * @default - the `kompose.volume.storage-class-name` label, else `ComposeAppProps.storageClassName`
   */
  readonly storageClassName?: string;
}

/**
 * Default requests for containers whose compose service sets none, and default limits: a limit given here applies to
 * every container compose gives none, the built-in ones only with `ComposeAppProps.defaultLimits`.
 */
export interface ResourceDefaults {
  /** @default Cpu.millis(100) */
  readonly cpuRequest?: kplus.Cpu;
  /** @default - none; Cpu.units(1) with `ComposeAppProps.defaultLimits` */
  readonly cpuLimit?: kplus.Cpu;
  /** @default Size.mebibytes(128) */
  readonly memoryRequest?: Size;
  /** @default - none; Size.mebibytes(512) with `ComposeAppProps.defaultLimits` */
  readonly memoryLimit?: Size;
}

/** What a service's `x-cdk8s-compose` key may hold. */
export interface ServiceExtension {
  readonly http?: boolean | { readonly port?: number; readonly livenessPath?: string; readonly readinessPath?: string };
  readonly expose?: Exposure;
  readonly ingressHost?: string;
  readonly ingressPath?: string;
  readonly engine?: DatabaseEngine | false;
  readonly target?: ServiceTarget;
}

const EXTENSION_KEYS = ['engine', 'expose', 'http', 'ingressHost', 'ingressPath', 'target'];

/** Reads and checks a service's `x-cdk8s-compose` key. */
export function readServiceExtension(service: ComposeService): ServiceExtension {
  const raw = service.extensions[EXTENSION_KEY];
  if (raw === undefined || raw === null) {
    return {};
  }
  const at = (key?: string): ComposeLocation => ({
    ...service.at,
    path: `${service.at.path}.${EXTENSION_KEY}${key ? `.${key}` : ''}`,
  });
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ComposeError('invalid extension', {
      at: at(),
      value: raw,
      allowed: `a mapping with the keys ${EXTENSION_KEYS.join(', ')}`,
    });
  }
  const ext = raw as Record<string, unknown>;
  for (const key of Object.keys(ext).sort()) {
    if (!EXTENSION_KEYS.includes(key)) {
      throw new ComposeError('unknown key', {
        at: at(key),
        value: key,
        allowed: EXTENSION_KEYS.join(', '),
        hint: 'remove the key or fix its spelling',
      });
    }
  }
  const text = (key: string): string | undefined => {
    const value = ext[key];
    if (value !== undefined && typeof value !== 'string') {
      throw new ComposeError('invalid value', { at: at(key), value, allowed: 'a string' });
    }
    return value as string | undefined;
  };
  let http: ServiceExtension['http'];
  if (typeof ext.http === 'boolean' || ext.http === undefined) {
    http = ext.http as boolean | undefined;
  } else if (typeof ext.http === 'object' && ext.http !== null && !Array.isArray(ext.http)) {
    const h = ext.http as Record<string, unknown>;
    const allowed = ['livenessPath', 'port', 'readinessPath'];
    for (const key of Object.keys(h)) {
      if (!allowed.includes(key)) {
        throw new ComposeError('unknown key', { at: at(`http.${key}`), value: key, allowed: allowed.join(', ') });
      }
    }
    if (h.port !== undefined && !(Number.isInteger(h.port) && (h.port as number) >= 1 && (h.port as number) <= 65535)) {
      throw new ComposeError('invalid port', { at: at('http.port'), value: h.port, allowed: 'a port number 1-65535' });
    }
    for (const key of ['livenessPath', 'readinessPath']) {
      if (h[key] !== undefined && (typeof h[key] !== 'string' || !(h[key] as string).startsWith('/'))) {
        throw new ComposeError('invalid path', {
          at: at(`http.${key}`),
          value: h[key],
          allowed: 'a path starting with "/"',
        });
      }
    }
    http = h as ServiceExtension['http'];
  } else {
    throw new ComposeError('invalid value', {
      at: at('http'),
      value: ext.http,
      allowed: 'true, false, or a mapping with port, livenessPath, readinessPath',
    });
  }
  const exposeText = text('expose');
  const exposures = Object.values(Exposure) as string[];
  if (exposeText !== undefined && !exposures.includes(exposeText)) {
    throw new ComposeError('invalid exposure', { at: at('expose'), value: exposeText, allowed: exposures.join(', ') });
  }
  const engineText = text('engine');
  let engine: DatabaseEngine | false | undefined;
  if (engineText === 'none') {
    engine = false;
  } else if (engineText !== undefined) {
    engine = DatabaseEngine.fromName(engineText);
    if (!engine) {
      throw new ComposeError('unknown engine', {
        at: at('engine'),
        value: engineText,
        allowed: 'postgres, mysql, mariadb, mongo, redis, or none',
      });
    }
  }
  const targetText = text('target');
  const targets = Object.values(ServiceTarget) as string[];
  if (targetText !== undefined && !targets.includes(targetText)) {
    throw new ComposeError('invalid target', { at: at('target'), value: targetText, allowed: targets.join(', ') });
  }
  return {
    http,
    expose: exposeText as Exposure | undefined,
    ingressHost: text('ingressHost'),
    ingressPath: text('ingressPath'),
    engine,
    target: targetText as ServiceTarget | undefined,
  };
}

/**
 * The kompose labels this library honours, besides `kompose.hpa.*` (read by the autoscaler) and
 * `kompose.service.healthcheck.<readiness|liveness>.*` (see `kompose-labels.ts`).
 */
export enum KomposeLabel {
  SERVICE_TYPE = 'kompose.service.type',
  NODE_PORT = 'kompose.service.nodeport.port',
  SERVICE_EXPOSE = 'kompose.service.expose',
  INGRESS_CLASS = 'kompose.service.expose.ingress-class-name',
  TLS_SECRET = 'kompose.service.expose.tls-secret',
  VOLUME_SIZE = 'kompose.volume.size',
  VOLUME_STORAGE_CLASS = 'kompose.volume.storage-class-name',
  CONTROLLER_TYPE = 'kompose.controller.type',
  CRON_SCHEDULE = 'kompose.cronjob.schedule',
  CRON_CONCURRENCY_POLICY = 'kompose.cronjob.concurrency_policy',
  CRON_BACKOFF_LIMIT = 'kompose.cronjob.backoff_limit',
  IMAGE_PULL_POLICY = 'kompose.image-pull-policy',
  IMAGE_PULL_SECRET = 'kompose.image-pull-secret',
  FS_GROUP = 'kompose.security-context.fsgroup',
  EXTERNAL_TRAFFIC_POLICY = 'kompose.service.external-traffic-policy',
  SERVICE_ACCOUNT_NAME = 'kompose.serviceaccount-name',
  INIT_CONTAINER_NAME = 'kompose.init.containers.name',
  INIT_CONTAINER_IMAGE = 'kompose.init.containers.image',
  INIT_CONTAINER_COMMAND = 'kompose.init.containers.command',
}

/** The Service types `kompose.service.type` may name, in lower case as kompose reads them. */
export const KOMPOSE_SERVICE_TYPES = ['clusterip', 'headless', 'loadbalancer', 'nodeport'] as const;
export type KomposeServiceType = (typeof KOMPOSE_SERVICE_TYPES)[number];

/** Reads a size label (`kompose.volume.size`) into bytes. */
export function sizeLabel(value: string, at: ComposeLocation): number {
  const bytes = parseStorageBytes(value);
  if (bytes === undefined || bytes <= 0) {
    throw new ComposeError('invalid volume size', {
      at,
      value,
      allowed: STORAGE_QUANTITY_FORMAT,
      hint: 'write the size with a binary unit, for example "10Gi"',
    });
  }
  return bytes;
}
