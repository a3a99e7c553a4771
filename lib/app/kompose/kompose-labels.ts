import * as kplus from 'cdk8s-plus-27';
import { ComposeError } from '../../compose/errors';
import { ComposeLocation, ComposeService } from '../../compose/model';
import { shellSplit } from '../../compose/shell-split';
import { KomposeHpaLabel } from '../service/autoscaler';
import { KomposeCronJob, readCronJob } from './kompose-cron-labels';
import { WHOLE_NUMBER, labelAt, labelPort as port } from './kompose-label-values';
import { KomposeProbeLabels, PROBE_KEYS, PROBE_PREFIX, readProbe } from './kompose-probe-labels';
import { KOMPOSE_SERVICE_TYPES, KomposeLabel, KomposeServiceType } from '../settings';
import { isDnsSubdomain, isIngressHost } from '../../util/dns';

/**
 * kompose's service labels, read and checked in one place: what `ComposeApp` honours of them, and the list of every
 * label it honours, so that each other `kompose.*` label is reported once, as `unsupported-label`.
 */

export type { KomposeCronJob } from './kompose-cron-labels';
export { parseCronSchedule } from './kompose-cron-labels';
export { labelAt } from './kompose-label-values';
export type { KomposeProbeCheck, KomposeProbeLabels } from './kompose-probe-labels';

/** The values of `kompose.controller.type` (lower case, as kompose reads them). */
export enum KomposeControllerType {
  DEPLOYMENT = 'deployment',
  STATEFUL_SET = 'statefulset',
  /** A DaemonSet: one pod on every node. */
  DAEMON_SET = 'daemonset',
  /** Superseded by Deployments: the service runs as one, with a warning. */
  REPLICATION_CONTROLLER = 'replicationcontroller',
}

/** One host rule of `kompose.service.expose`. */
export interface KomposeExposeHost {
  /** Undefined for `true`: the app's default host. */
  readonly host?: string;
  readonly path?: string;
}

/** `kompose.init.containers.*`: a container the pod runs to completion before its own (after the dependency waits). */
export interface KomposeInitContainer {
  /** @default 'init' */
  readonly name: string;
  readonly image: string;
  /** Undefined: the image's entrypoint. */
  readonly command?: readonly string[];
  readonly at: ComposeLocation;
}

/** The values of `kompose.service.external-traffic-policy`, as Kubernetes spells them. */
export type ExternalTrafficPolicy = 'Cluster' | 'Local';

/** The kompose labels of one service, checked. */
export interface KomposeServiceLabels {
  readonly serviceType?: KomposeServiceType;
  readonly nodePort?: number;
  /** `kompose.service.expose`: undefined when absent or `false`. */
  readonly expose?: readonly KomposeExposeHost[];
  readonly tlsSecret?: string;
  readonly ingressClassName?: string;
  readonly controller?: KomposeControllerType;
  readonly readiness?: KomposeProbeLabels;
  readonly liveness?: KomposeProbeLabels;
  readonly cronJob?: KomposeCronJob;
  readonly imagePullPolicy?: kplus.ImagePullPolicy;
  readonly imagePullSecret?: string;
  readonly fsGroup?: number;
  /** For the LoadBalancer or NodePort Service of the published ports. */
  readonly externalTrafficPolicy?: ExternalTrafficPolicy;
  readonly initContainer?: KomposeInitContainer;
  /** `kompose.serviceaccount-name`: the pod's service account, which the cluster already has. */
  readonly serviceAccountName?: string;
}

/** Every label `ComposeApp` honours on a service (the healthcheck labels of both probes included), sorted. */
export const HONOURED_KOMPOSE_LABELS: readonly string[] = [
  ...Object.values(KomposeLabel),
  ...Object.values(KomposeHpaLabel),
  ...['readiness', 'liveness'].flatMap((probe) => PROBE_KEYS.map((key) => `${PROBE_PREFIX}${probe}.${key}`)),
].sort();

/** The labels `ComposeApp` honours on a top-level volume. */
export const HONOURED_KOMPOSE_VOLUME_LABELS: readonly string[] = [
  KomposeLabel.VOLUME_SIZE,
  KomposeLabel.VOLUME_STORAGE_CLASS,
];

/** True for a `kompose.*` service label that `ComposeApp` honours. */
export function isHonouredKomposeLabel(key: string): boolean {
  return HONOURED_KOMPOSE_LABELS.includes(key);
}

/**
 * Reads and checks the kompose labels of a service (not `kompose.hpa.*`, which `ServiceAutoscaler.parseKomposeLabels`
 * reads, nor the volume labels, which the claims read). A bad value is a `ComposeError` naming the label.
 */
export function readKomposeLabels(service: ComposeService): KomposeServiceLabels {
  const labels = service.labels;
  const at = (key: string) => labelAt(service, key);
  const text = (key: string): string | undefined => {
    const value = labels[key];
    return value === undefined ? undefined : value.trim();
  };

  const serviceType = readServiceType(service);
  const nodePortText = text(KomposeLabel.NODE_PORT);
  let nodePort: number | undefined;
  if (nodePortText !== undefined) {
    nodePort = port(
      nodePortText,
      at(KomposeLabel.NODE_PORT),
      "a port number 1-65535 (the cluster's NodePort range is usually 30000-32767)",
    );
    if (serviceType !== 'nodeport') {
      throw new ComposeError(`${KomposeLabel.NODE_PORT} needs ${KomposeLabel.SERVICE_TYPE}: nodeport`, {
        at: at(KomposeLabel.NODE_PORT),
        value: nodePortText,
        hint: `add the label ${KomposeLabel.SERVICE_TYPE}: nodeport, or remove ${KomposeLabel.NODE_PORT}`,
      });
    }
    const published = new Set(service.ports.map((p) => `${p.published ?? p.target}/${p.protocol}`));
    if (published.size !== 1) {
      throw new ComposeError(
        `${KomposeLabel.NODE_PORT} names one node port, and the service publishes ${published.size} ports`,
        {
          at: at(KomposeLabel.NODE_PORT),
          value: nodePortText,
          allowed: 'a service that publishes exactly one port',
          hint: `remove ${KomposeLabel.NODE_PORT}: each published port then gets its own node port`,
        },
      );
    }
  }

  const expose = readExpose(service);
  const tlsSecret = text(KomposeLabel.TLS_SECRET);
  if (tlsSecret !== undefined && !isDnsSubdomain(tlsSecret)) {
    throw new ComposeError('invalid TLS Secret name', {
      at: at(KomposeLabel.TLS_SECRET),
      value: tlsSecret,
      allowed: 'a Secret name: lower case letters, digits, "-" and "."',
    });
  }
  const ingressClassName = text(KomposeLabel.INGRESS_CLASS);
  if (ingressClassName !== undefined && !isDnsSubdomain(ingressClassName)) {
    throw new ComposeError('invalid IngressClass name', {
      at: at(KomposeLabel.INGRESS_CLASS),
      value: ingressClassName,
      allowed: 'an IngressClass name: lower case letters, digits, "-" and "."',
    });
  }

  const controllerText = text(KomposeLabel.CONTROLLER_TYPE);
  let controller: KomposeControllerType | undefined;
  if (controllerText !== undefined) {
    controller = controllerText.toLowerCase() as KomposeControllerType;
    if (!Object.values(KomposeControllerType).includes(controller)) {
      throw new ComposeError('invalid controller type', {
        at: at(KomposeLabel.CONTROLLER_TYPE),
        value: controllerText,
        allowed: Object.values(KomposeControllerType).join(', '),
      });
    }
  }

  const pullPolicyText = text(KomposeLabel.IMAGE_PULL_POLICY);
  let imagePullPolicy: kplus.ImagePullPolicy | undefined;
  if (pullPolicyText !== undefined) {
    imagePullPolicy = Object.values(kplus.ImagePullPolicy).find(
      (p) => p.toLowerCase() === pullPolicyText.toLowerCase(),
    );
    if (!imagePullPolicy) {
      throw new ComposeError('invalid image pull policy', {
        at: at(KomposeLabel.IMAGE_PULL_POLICY),
        value: pullPolicyText,
        allowed: Object.values(kplus.ImagePullPolicy).join(', '),
      });
    }
  }
  const imagePullSecret = text(KomposeLabel.IMAGE_PULL_SECRET);
  if (imagePullSecret !== undefined && !isDnsSubdomain(imagePullSecret)) {
    throw new ComposeError('invalid image pull Secret name', {
      at: at(KomposeLabel.IMAGE_PULL_SECRET),
      value: imagePullSecret,
      allowed: 'a Secret name: lower case letters, digits, "-" and "."',
    });
  }
  const fsGroupText = text(KomposeLabel.FS_GROUP);
  let fsGroup: number | undefined;
  if (fsGroupText !== undefined) {
    fsGroup = WHOLE_NUMBER.test(fsGroupText) ? Number(fsGroupText) : NaN;
    if (!(fsGroup >= 0 && fsGroup <= 2 ** 31 - 1)) {
      throw new ComposeError('invalid fsGroup', {
        at: at(KomposeLabel.FS_GROUP),
        value: fsGroupText,
        allowed: 'a group id, 0 or more',
      });
    }
  }

  const trafficText = text(KomposeLabel.EXTERNAL_TRAFFIC_POLICY);
  let externalTrafficPolicy: ExternalTrafficPolicy | undefined;
  if (trafficText !== undefined) {
    const lower = trafficText.toLowerCase();
    if (lower !== 'cluster' && lower !== 'local') {
      throw new ComposeError('invalid external traffic policy', {
        at: at(KomposeLabel.EXTERNAL_TRAFFIC_POLICY),
        value: trafficText,
        allowed: 'cluster, local',
      });
    }
    externalTrafficPolicy = lower === 'local' ? 'Local' : 'Cluster';
  }

  const serviceAccountName = text(KomposeLabel.SERVICE_ACCOUNT_NAME);
  if (serviceAccountName !== undefined && (serviceAccountName.length > 253 || !isDnsSubdomain(serviceAccountName))) {
    throw new ComposeError('invalid service account name', {
      at: at(KomposeLabel.SERVICE_ACCOUNT_NAME),
      value: serviceAccountName,
      allowed: 'a ServiceAccount name: lower case letters, digits, "-" and "."',
    });
  }

  return {
    serviceAccountName,
    externalTrafficPolicy,
    initContainer: readInitContainer(service),
    serviceType,
    nodePort,
    expose,
    tlsSecret,
    ingressClassName,
    controller,
    readiness: readProbe(service, 'readiness'),
    liveness: readProbe(service, 'liveness'),
    cronJob: readCronJob(service),
    imagePullPolicy,
    imagePullSecret,
    fsGroup,
  };
}

/**
 * `kompose.service.expose.tls-secret` and `.ingress-class-name` configure an Ingress: a service that gets none is an
 * error, as in kompose (which asks for `kompose.service.expose`).
 */
export function checkIngressLabels(service: ComposeService, hasIngress: boolean): void {
  if (hasIngress) {
    return;
  }
  for (const key of [KomposeLabel.TLS_SECRET, KomposeLabel.INGRESS_CLASS]) {
    if (service.labels[key] !== undefined) {
      throw new ComposeError(`${key} configures an Ingress, and service "${service.name}" gets none`, {
        at: labelAt(service, key),
        allowed: `a service with a published HTTP port, or the label ${KomposeLabel.SERVICE_EXPOSE}`,
        hint: `add ${KomposeLabel.SERVICE_EXPOSE}: "true" (or a host name), or remove ${key}`,
      });
    }
  }
}

/** Reads `kompose.service.type`, case-insensitively as kompose does. */
export function readServiceType(service: ComposeService): KomposeServiceType | undefined {
  const raw = service.labels[KomposeLabel.SERVICE_TYPE];
  if (raw === undefined) {
    return undefined;
  }
  const value = raw.trim().toLowerCase() as KomposeServiceType;
  if (!KOMPOSE_SERVICE_TYPES.includes(value)) {
    throw new ComposeError('invalid Service type', {
      at: labelAt(service, KomposeLabel.SERVICE_TYPE),
      value: raw,
      allowed: KOMPOSE_SERVICE_TYPES.join(', '),
    });
  }
  return value;
}

/**
 * `kompose.service.expose`: `true`, or a comma-separated list of hosts, each optionally with a path
 * (`shop.example.com/api`); lower-cased and trimmed as kompose does. `false` means no exposure.
 */
function readExpose(service: ComposeService): KomposeExposeHost[] | undefined {
  const raw = service.labels[KomposeLabel.SERVICE_EXPOSE];
  if (raw === undefined) {
    return undefined;
  }
  const value = raw.trim().toLowerCase();
  if (value === 'false') {
    return undefined;
  }
  const hosts: KomposeExposeHost[] = [];
  for (const entry of value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    if (entry === 'true') {
      hosts.push({});
      continue;
    }
    const slash = entry.indexOf('/');
    const host = slash < 0 ? entry : entry.slice(0, slash);
    const path = slash < 0 ? undefined : entry.slice(slash);
    if (!isIngressHost(host)) {
      throw new ComposeError('invalid Ingress host', {
        at: labelAt(service, KomposeLabel.SERVICE_EXPOSE),
        value: entry,
        allowed: 'true, or host names such as "shop.example.com" or "shop.example.com/api", separated by ","',
      });
    }
    hosts.push({ host, path });
  }
  if (hosts.length === 0) {
    throw new ComposeError('empty exposure', {
      at: labelAt(service, KomposeLabel.SERVICE_EXPOSE),
      value: raw,
      allowed: 'true, false, or host names separated by ","',
    });
  }
  return hosts;
}

const CONTAINER_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `kompose.init.containers.*`, as kompose reads them: the command a JSON list, or words split as a shell would. */
function readInitContainer(service: ComposeService): KomposeInitContainer | undefined {
  const name = service.labels[KomposeLabel.INIT_CONTAINER_NAME]?.trim();
  const image = service.labels[KomposeLabel.INIT_CONTAINER_IMAGE]?.trim();
  const commandText = service.labels[KomposeLabel.INIT_CONTAINER_COMMAND]?.trim();
  if (name === undefined && image === undefined && commandText === undefined) {
    return undefined;
  }
  const given = name !== undefined ? KomposeLabel.INIT_CONTAINER_NAME : KomposeLabel.INIT_CONTAINER_COMMAND;
  if (image === undefined || image === '' || /\s/.test(image)) {
    throw new ComposeError(
      image ? 'invalid init container image' : `${given} needs ${KomposeLabel.INIT_CONTAINER_IMAGE}`,
      {
        at: labelAt(service, image ? KomposeLabel.INIT_CONTAINER_IMAGE : given),
        ...(image ? { value: image } : {}),
        allowed: 'an image reference such as busybox:1.36',
        hint: `add the label ${KomposeLabel.INIT_CONTAINER_IMAGE} with the image the init container runs`,
      },
    );
  }
  if (name !== undefined && (name.length > 63 || !CONTAINER_NAME.test(name) || name.startsWith('wait-'))) {
    throw new ComposeError('invalid init container name', {
      at: labelAt(service, KomposeLabel.INIT_CONTAINER_NAME),
      value: name,
      allowed:
        'a container name: at most 63 lower case letters, digits and "-", not starting with "wait-" (the dependency waits\' names)',
    });
  }
  let command: string[] | undefined;
  if (commandText !== undefined) {
    const at = labelAt(service, KomposeLabel.INIT_CONTAINER_COMMAND);
    if (commandText.startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(commandText);
      } catch {
        parsed = undefined;
      }
      if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((word) => typeof word === 'string')) {
        throw new ComposeError('invalid init container command', {
          at,
          value: commandText,
          allowed: 'a JSON list of strings, ["sh", "-c", "…"], or words as a shell splits them',
        });
      }
      command = parsed as string[];
    } else {
      command = shellSplit(commandText);
      if (command === undefined || command.length === 0) {
        throw new ComposeError('invalid init container command', {
          at,
          value: commandText,
          allowed: 'a JSON list of strings, ["sh", "-c", "…"], or words as a shell splits them',
          hint: 'close the quotes, or write the command as a JSON list',
        });
      }
    }
  }
  return { name: name ?? 'init', image, command, at: labelAt(service, KomposeLabel.INIT_CONTAINER_IMAGE) };
}
