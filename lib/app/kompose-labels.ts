import { Cron } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeError } from '../compose/errors';
import { ComposeLocation, ComposeService, ComposeVolume } from '../compose/model';
import { shellSplit } from '../compose/shell-split';
import { parseDuration } from '../compose/units';
import { KomposeHpaLabel } from './autoscaler';
import { KOMPOSE_SERVICE_TYPES, KomposeLabel, KomposeServiceType } from './settings';
import { isDnsSubdomain, isIngressHost } from '../util/dns';

/**
 * kompose's service labels, read and checked in one place: what `ComposeApp` honours of them, and the list of every
 * label it honours, so that each other `kompose.*` label is reported once, as `unsupported-label`.
 */

/** The values of `kompose.controller.type` (lower case, as kompose reads them). */
export enum KomposeControllerType {
  DEPLOYMENT = 'deployment',
  STATEFUL_SET = 'statefulset',
  /** A DaemonSet: one pod on every node. */
  DAEMON_SET = 'daemonset',
  /** Superseded by Deployments: the service runs as one, with a warning. */
  REPLICATION_CONTROLLER = 'replicationcontroller',
}

/** What a probe runs, from `test`, `http_get_path`/`http_get_port` or `tcp_port`. */
export type KomposeProbeCheck =
  | { readonly kind: 'exec'; readonly command: readonly string[] }
  | { readonly kind: 'http'; readonly path: string; readonly port?: number }
  | { readonly kind: 'tcp'; readonly port: number };

/** The `kompose.service.healthcheck.<readiness|liveness>.*` labels of one probe. */
export interface KomposeProbeLabels {
  /** `disable: true`: no such probe at all. */
  readonly disabled: boolean;
  readonly check?: KomposeProbeCheck;
  readonly periodSeconds?: number;
  readonly timeoutSeconds?: number;
  readonly failureThreshold?: number;
  /** From `start_period`, as kompose maps it. */
  readonly initialDelaySeconds?: number;
  /** The labels' common prefix, `kompose.service.healthcheck.readiness`. */
  readonly prefix: string;
  /** Where the labels are, for messages. */
  readonly at: ComposeLocation;
}

/** One host rule of `kompose.service.expose`. */
export interface KomposeExposeHost {
  /** Undefined for `true`: the app's default host. */
  readonly host?: string;
  readonly path?: string;
}

/** The `kompose.cronjob.*` labels. */
export interface KomposeCronJob {
  readonly schedule: Cron;
  readonly concurrencyPolicy?: kplus.ConcurrencyPolicy;
  readonly backoffLimit?: number;
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

const PROBE_KEYS = ['disable', 'http_get_path', 'http_get_port', 'interval', 'retries', 'start_period', 'tcp_port', 'test', 'timeout'];
const PROBE_PREFIX = 'kompose.service.healthcheck.';
const PROBE_LABEL = /^kompose\.service\.healthcheck\.(readiness|liveness)\.([a-z_]+)$/;
const WHOLE_NUMBER = /^\d+$/;

/** Every label `ComposeApp` honours on a service (the healthcheck labels of both probes included), sorted. */
export const HONOURED_KOMPOSE_LABELS: readonly string[] = [
  ...Object.values(KomposeLabel),
  ...Object.values(KomposeHpaLabel),
  ...['readiness', 'liveness'].flatMap((probe) => PROBE_KEYS.map((key) => `${PROBE_PREFIX}${probe}.${key}`)),
].sort();

/** The labels `ComposeApp` honours on a top-level volume. */
export const HONOURED_KOMPOSE_VOLUME_LABELS: readonly string[] = [KomposeLabel.VOLUME_SIZE, KomposeLabel.VOLUME_STORAGE_CLASS];

/** True for a `kompose.*` service label that `ComposeApp` honours. */
export function isHonouredKomposeLabel(key: string): boolean {
  return HONOURED_KOMPOSE_LABELS.includes(key);
}

/** The location of one label of a service or volume, `services.web.labels["kompose.service.type"]`. */
export function labelAt(owner: ComposeService | ComposeVolume, key: string): ComposeLocation {
  return { ...owner.at, path: `${owner.at.path}.labels["${key}"]` };
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
    nodePort = port(nodePortText, at(KomposeLabel.NODE_PORT), 'a port number 1-65535 (the cluster\'s NodePort range is usually 30000-32767)');
    if (serviceType !== 'nodeport') {
      throw new ComposeError(`${KomposeLabel.NODE_PORT} needs ${KomposeLabel.SERVICE_TYPE}: nodeport`, {
        at: at(KomposeLabel.NODE_PORT),
        value: nodePortText,
        hint: `add the label ${KomposeLabel.SERVICE_TYPE}: nodeport, or remove ${KomposeLabel.NODE_PORT}`,
      });
    }
    const published = new Set(service.ports.map((p) => `${p.published ?? p.target}/${p.protocol}`));
    if (published.size !== 1) {
      throw new ComposeError(`${KomposeLabel.NODE_PORT} names one node port, and the service publishes ${published.size} ports`, {
        at: at(KomposeLabel.NODE_PORT),
        value: nodePortText,
        allowed: 'a service that publishes exactly one port',
        hint: `remove ${KomposeLabel.NODE_PORT}: each published port then gets its own node port`,
      });
    }
  }

  const expose = readExpose(service);
  const tlsSecret = text(KomposeLabel.TLS_SECRET);
  if (tlsSecret !== undefined && !isDnsSubdomain(tlsSecret)) {
    throw new ComposeError('invalid TLS Secret name', {
      at: at(KomposeLabel.TLS_SECRET), value: tlsSecret, allowed: 'a Secret name: lower case letters, digits, "-" and "."',
    });
  }
  const ingressClassName = text(KomposeLabel.INGRESS_CLASS);
  if (ingressClassName !== undefined && !isDnsSubdomain(ingressClassName)) {
    throw new ComposeError('invalid IngressClass name', {
      at: at(KomposeLabel.INGRESS_CLASS), value: ingressClassName, allowed: 'an IngressClass name: lower case letters, digits, "-" and "."',
    });
  }

  const controllerText = text(KomposeLabel.CONTROLLER_TYPE);
  let controller: KomposeControllerType | undefined;
  if (controllerText !== undefined) {
    controller = controllerText.toLowerCase() as KomposeControllerType;
    if (!Object.values(KomposeControllerType).includes(controller)) {
      throw new ComposeError('invalid controller type', {
        at: at(KomposeLabel.CONTROLLER_TYPE), value: controllerText, allowed: Object.values(KomposeControllerType).join(', '),
      });
    }
  }

  const pullPolicyText = text(KomposeLabel.IMAGE_PULL_POLICY);
  let imagePullPolicy: kplus.ImagePullPolicy | undefined;
  if (pullPolicyText !== undefined) {
    imagePullPolicy = Object.values(kplus.ImagePullPolicy).find((p) => p.toLowerCase() === pullPolicyText.toLowerCase());
    if (!imagePullPolicy) {
      throw new ComposeError('invalid image pull policy', {
        at: at(KomposeLabel.IMAGE_PULL_POLICY), value: pullPolicyText, allowed: Object.values(kplus.ImagePullPolicy).join(', '),
      });
    }
  }
  const imagePullSecret = text(KomposeLabel.IMAGE_PULL_SECRET);
  if (imagePullSecret !== undefined && !isDnsSubdomain(imagePullSecret)) {
    throw new ComposeError('invalid image pull Secret name', {
      at: at(KomposeLabel.IMAGE_PULL_SECRET), value: imagePullSecret, allowed: 'a Secret name: lower case letters, digits, "-" and "."',
    });
  }
  const fsGroupText = text(KomposeLabel.FS_GROUP);
  let fsGroup: number | undefined;
  if (fsGroupText !== undefined) {
    fsGroup = WHOLE_NUMBER.test(fsGroupText) ? Number(fsGroupText) : NaN;
    if (!(fsGroup >= 0 && fsGroup <= 2 ** 31 - 1)) {
      throw new ComposeError('invalid fsGroup', { at: at(KomposeLabel.FS_GROUP), value: fsGroupText, allowed: 'a group id, 0 or more' });
    }
  }

  const trafficText = text(KomposeLabel.EXTERNAL_TRAFFIC_POLICY);
  let externalTrafficPolicy: ExternalTrafficPolicy | undefined;
  if (trafficText !== undefined) {
    const lower = trafficText.toLowerCase();
    if (lower !== 'cluster' && lower !== 'local') {
      throw new ComposeError('invalid external traffic policy', {
        at: at(KomposeLabel.EXTERNAL_TRAFFIC_POLICY), value: trafficText, allowed: 'cluster, local',
      });
    }
    externalTrafficPolicy = lower === 'local' ? 'Local' : 'Cluster';
  }

  const serviceAccountName = text(KomposeLabel.SERVICE_ACCOUNT_NAME);
  if (serviceAccountName !== undefined && (serviceAccountName.length > 253 || !isDnsSubdomain(serviceAccountName))) {
    throw new ComposeError('invalid service account name', {
      at: at(KomposeLabel.SERVICE_ACCOUNT_NAME), value: serviceAccountName,
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
  for (const entry of value.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
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
      at: labelAt(service, KomposeLabel.SERVICE_EXPOSE), value: raw, allowed: 'true, false, or host names separated by ","',
    });
  }
  return hosts;
}

function readProbe(service: ComposeService, probe: 'readiness' | 'liveness'): KomposeProbeLabels | undefined {
  const keys = Object.keys(service.labels).sort().filter((key) => key.startsWith(`${PROBE_PREFIX}${probe}.`));
  if (keys.length === 0) {
    return undefined;
  }
  const label = (key: string) => `${PROBE_PREFIX}${probe}.${key}`;
  const at = (key: string) => labelAt(service, label(key));
  const values: Record<string, string> = {};
  for (const key of keys) {
    const name = PROBE_LABEL.exec(key)?.[2];
    if (name === undefined || !PROBE_KEYS.includes(name)) {
      throw new ComposeError(`unknown ${probe} label "${key}"`, {
        at: labelAt(service, key),
        allowed: PROBE_KEYS.map(label).join(', '),
        hint: 'fix the spelling or remove the label',
      });
    }
    values[name] = service.labels[key].trim();
  }
  let disabled = false;
  if (values.disable !== undefined) {
    const flag = values.disable.toLowerCase();
    if (!['true', 'false', '1', '0'].includes(flag)) {
      throw new ComposeError('invalid flag', { at: at('disable'), value: values.disable, allowed: 'true or false' });
    }
    disabled = flag === 'true' || flag === '1';
  }
  const checks: KomposeProbeCheck[] = [];
  if (values.test !== undefined) {
    const command = probeCommand(values.test, at('test'));
    if (command === 'NONE') {
      disabled = true;
    } else {
      checks.push({ kind: 'exec', command });
    }
  }
  if (values.http_get_path !== undefined) {
    if (!values.http_get_path.startsWith('/')) {
      throw new ComposeError('invalid HTTP path', { at: at('http_get_path'), value: values.http_get_path, allowed: 'a path starting with "/"' });
    }
    checks.push({
      kind: 'http',
      path: values.http_get_path,
      port: values.http_get_port === undefined ? undefined : port(values.http_get_port, at('http_get_port')),
    });
  } else if (values.http_get_port !== undefined) {
    throw new ComposeError(`${label('http_get_port')} needs ${label('http_get_path')}`, {
      at: at('http_get_port'), value: values.http_get_port, hint: `add ${label('http_get_path')}, e.g. /health`,
    });
  }
  if (values.tcp_port !== undefined) {
    checks.push({ kind: 'tcp', port: port(values.tcp_port, at('tcp_port')) });
  }
  if (checks.length > 1) {
    throw new ComposeError(`the ${probe} labels name ${checks.length} checks`, {
      at: at(checks[1].kind === 'http' ? 'http_get_path' : 'tcp_port'),
      allowed: `one of ${label('test')}, ${label('http_get_path')} or ${label('tcp_port')}`,
      hint: 'remove all but one',
    });
  }
  const seconds = (key: string, minimum: number): number | undefined => {
    if (values[key] === undefined) {
      return undefined;
    }
    const parsed = parseDuration(values[key]);
    if (parsed === undefined) {
      throw new ComposeError('invalid duration', { at: at(key), value: values[key], allowed: 'a duration such as 10s, 1m30s or 500ms' });
    }
    return Math.max(minimum, Math.ceil(parsed));
  };
  let failureThreshold: number | undefined;
  if (values.retries !== undefined) {
    failureThreshold = WHOLE_NUMBER.test(values.retries) ? Number(values.retries) : NaN;
    if (!(failureThreshold >= 1 && failureThreshold <= 2 ** 31 - 1)) {
      throw new ComposeError('invalid retries', { at: at('retries'), value: values.retries, allowed: 'a whole number, 1 or more' });
    }
  }
  return {
    disabled,
    check: checks[0],
    periodSeconds: seconds('interval', 1),
    timeoutSeconds: seconds('timeout', 1),
    failureThreshold,
    initialDelaySeconds: seconds('start_period', 0),
    prefix: `${PROBE_PREFIX}${probe}`,
    at: labelAt(service, `${PROBE_PREFIX}${probe}`),
  };
}

/**
 * The argv of a `test` label, as compose reads a healthcheck test: `CMD a b` runs `a b`, `CMD-SHELL …` and any other
 * string run through `sh -c`, `NONE` turns the probe off; a JSON list (`["CMD", "curl", "-f", "…"]`) is read the
 * same way.
 */
function probeCommand(value: string, at: ComposeLocation): string[] | 'NONE' {
  let words: string[] | undefined;
  if (value.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed) && parsed.length > 0 && parsed.every((w) => typeof w === 'string')) {
        words = parsed as string[];
      }
    } catch {
      words = undefined;
    }
    if (!words) {
      throw new ComposeError('invalid probe test', { at, value, allowed: 'a command, or a JSON list of strings such as ["CMD", "curl", "-f", "http://localhost/"]' });
    }
    if (words[0] === 'NONE') {
      return 'NONE';
    }
    if (words[0] === 'CMD-SHELL') {
      return ['sh', '-c', words.slice(1).join(' ')];
    }
    return words[0] === 'CMD' ? words.slice(1) : words;
  }
  if (value === 'NONE') {
    return 'NONE';
  }
  if (/^CMD\s/.test(value)) {
    words = shellSplit(value.slice(3).trim());
    if (!words || words.length === 0) {
      throw new ComposeError('invalid probe test', { at, value, allowed: 'CMD followed by a command, quotes closed' });
    }
    return words;
  }
  const script = /^CMD-SHELL\s/.test(value) ? value.slice('CMD-SHELL'.length).trim() : value;
  if (script === '') {
    throw new ComposeError('empty probe test', { at, allowed: 'a command' });
  }
  return ['sh', '-c', script];
}

function readCronJob(service: ComposeService): KomposeCronJob | undefined {
  const at = (key: string) => labelAt(service, key);
  const scheduleText = service.labels[KomposeLabel.CRON_SCHEDULE]?.trim();
  const policyText = service.labels[KomposeLabel.CRON_CONCURRENCY_POLICY]?.trim();
  const backoffText = service.labels[KomposeLabel.CRON_BACKOFF_LIMIT]?.trim();
  if (scheduleText === undefined) {
    const orphan = policyText !== undefined ? KomposeLabel.CRON_CONCURRENCY_POLICY : backoffText !== undefined ? KomposeLabel.CRON_BACKOFF_LIMIT : undefined;
    if (orphan) {
      throw new ComposeError(`${orphan} needs ${KomposeLabel.CRON_SCHEDULE}`, {
        at: at(orphan),
        hint: `add ${KomposeLabel.CRON_SCHEDULE} (e.g. "0 3 * * *") to run the service as a CronJob, or remove ${orphan}`,
      });
    }
    return undefined;
  }
  const schedule = parseCronSchedule(scheduleText);
  if (typeof schedule === 'string') {
    throw new ComposeError(`invalid schedule: ${schedule}`, {
      at: at(KomposeLabel.CRON_SCHEDULE),
      value: scheduleText,
      allowed: 'five fields (minute hour day-of-month month day-of-week), e.g. "*/15 * * * *", or @hourly, @daily, @weekly, @monthly, @yearly',
    });
  }
  let concurrencyPolicy: kplus.ConcurrencyPolicy | undefined;
  if (policyText !== undefined) {
    concurrencyPolicy = Object.values(kplus.ConcurrencyPolicy).find((p) => p.toLowerCase() === policyText.toLowerCase());
    if (!concurrencyPolicy) {
      throw new ComposeError('invalid concurrency policy', {
        at: at(KomposeLabel.CRON_CONCURRENCY_POLICY), value: policyText, allowed: Object.values(kplus.ConcurrencyPolicy).join(', '),
      });
    }
  }
  let backoffLimit: number | undefined;
  if (backoffText !== undefined) {
    backoffLimit = WHOLE_NUMBER.test(backoffText) ? Number(backoffText) : NaN;
    if (!(backoffLimit >= 0 && backoffLimit <= 2 ** 31 - 1)) {
      throw new ComposeError('invalid backoff limit', {
        at: at(KomposeLabel.CRON_BACKOFF_LIMIT), value: backoffText, allowed: 'a whole number of retries, 0 or more',
      });
    }
  }
  return { schedule, concurrencyPolicy, backoffLimit };
}

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const CRON_FIELDS: ReadonlyArray<{ name: string; min: number; max: number; names?: readonly string[] }> = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { name: 'day of week', min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

/**
 * A CronJob schedule as Kubernetes reads it: five fields, each `*`, `?`, numbers or names, ranges `a-b`, steps `/n`
 * and lists `,`, within the field's range; or a descriptor such as `@daily` (written out as its five fields).
 * Returns the problem as text when the schedule is invalid.
 */
export function parseCronSchedule(text: string): Cron | string {
  const expanded = DESCRIPTORS[text.toLowerCase()] ?? text;
  if (expanded.startsWith('@')) {
    return `unknown descriptor "${text}"`;
  }
  const fields = expanded.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) {
    return `expected 5 fields, got ${fields.length}`;
  }
  for (let i = 0; i < 5; i++) {
    const field = CRON_FIELDS[i];
    const value = (word: string): number => {
      const named = field.names?.indexOf(word.toLowerCase()) ?? -1;
      return named >= 0 ? named + field.min : WHOLE_NUMBER.test(word) ? Number(word) : NaN;
    };
    for (const item of fields[i].split(',')) {
      const match = /^(\*|\?|[0-9A-Za-z]+)(?:-([0-9A-Za-z]+))?(?:\/(\d+))?$/.exec(item);
      if (!match) {
        return `the ${field.name} field "${fields[i]}" is not a cron field`;
      }
      const bounds = match[1] === '*' || match[1] === '?' ? [] : [match[1], match[2]].filter((w): w is string => w !== undefined);
      for (const word of bounds) {
        const n = value(word);
        if (Number.isNaN(n)) {
          return `"${word}" is not a number${field.names ? ' or a name' : ''} in the ${field.name} field`;
        }
        if (!(n >= field.min && n <= field.max)) {
          return `${word} is out of range for the ${field.name} (${field.min}-${field.max})`;
        }
      }
      if (match[3] !== undefined && Number(match[3]) === 0) {
        return `the step in the ${field.name} field "${fields[i]}" is 0`;
      }
    }
  }
  return Cron.schedule({ minute: fields[0], hour: fields[1], day: fields[2], month: fields[3], weekDay: fields[4] });
}

function port(text: string, at: ComposeLocation, allowed = 'a port number 1-65535'): number {
  const n = WHOLE_NUMBER.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 65535)) {
    throw new ComposeError('invalid port', { at, value: text, allowed });
  }
  return n;
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
    throw new ComposeError(image ? 'invalid init container image' : `${given} needs ${KomposeLabel.INIT_CONTAINER_IMAGE}`, {
      at: labelAt(service, image ? KomposeLabel.INIT_CONTAINER_IMAGE : given),
      ...(image ? { value: image } : {}),
      allowed: 'an image reference such as busybox:1.36',
      hint: `add the label ${KomposeLabel.INIT_CONTAINER_IMAGE} with the image the init container runs`,
    });
  }
  if (name !== undefined && (name.length > 63 || !CONTAINER_NAME.test(name) || name.startsWith('wait-'))) {
    throw new ComposeError('invalid init container name', {
      at: labelAt(service, KomposeLabel.INIT_CONTAINER_NAME),
      value: name,
      allowed: 'a container name: at most 63 lower case letters, digits and "-", not starting with "wait-" (the dependency waits\' names)',
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
          at, value: commandText, allowed: 'a JSON list of strings, ["sh", "-c", "…"], or words as a shell splits them',
        });
      }
      command = parsed as string[];
    } else {
      command = shellSplit(commandText);
      if (command === undefined || command.length === 0) {
        throw new ComposeError('invalid init container command', {
          at, value: commandText, allowed: 'a JSON list of strings, ["sh", "-c", "…"], or words as a shell splits them',
          hint: 'close the quotes, or write the command as a JSON list',
        });
      }
    }
  }
  return { name: name ?? 'init', image, command, at: labelAt(service, KomposeLabel.INIT_CONTAINER_IMAGE) };
}
