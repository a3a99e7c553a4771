import { cronScheduleProblem } from './cron';
import {
  Manifest,
  ManifestProblem,
  expandLists,
  expectNoProblems,
  isObject,
  joinPath,
  problemAt,
  quote,
} from './problems';
import { compareQuantities, parseQuantity } from './quantity';
import { ContainerRef, PodTemplate, VmTemplate, containers, get, podTemplates, vmTemplates } from './workloads';

/**
 * Kubernetes' own rules that no schema expresses (k8s 1.27 `pkg/apis/<group>/validation`, apimachinery's
 * `util/validation`, KubeVirt v0.59.0's admission webhook). The API server or the controllers reject, or silently
 * misbehave on, a manifest that breaks one. Each rule takes every document of an output and returns its problems.
 */

/** A named rule; `K8S_RULES` lists them all, in the order `checkConformance` runs them. */
export interface Rule {
  readonly name: string;
  readonly check: (docs: readonly Manifest[]) => ManifestProblem[];
}

// ---- apimachinery/pkg/util/validation -------------------------------------------------------------------------

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Why `name` is not a DNS-1123 label (RFC 1123: `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63), or undefined. */
export function dns1123LabelProblem(name: string): string | undefined {
  if (name.length > 63) {
    return `must be no more than 63 characters, got ${name.length}`;
  }
  return DNS1123_LABEL.test(name)
    ? undefined
    : 'must be a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit';
}

/** Why `name` is not a DNS-1035 label (like a DNS-1123 label, but starting with a letter), or undefined. */
export function dns1035LabelProblem(name: string): string | undefined {
  if (name.length > 63) {
    return `must be no more than 63 characters, got ${name.length}`;
  }
  return DNS1035_LABEL.test(name)
    ? undefined
    : 'must be a DNS-1035 label: lowercase letters, digits and "-", starting with a letter and ending with a letter or digit';
}

/** Why `name` is not a DNS-1123 subdomain (dot-separated labels, at most 253), or undefined. */
export function dns1123SubdomainProblem(name: string): string | undefined {
  if (name.length > 253) {
    return `must be no more than 253 characters, got ${name.length}`;
  }
  return DNS1123_SUBDOMAIN.test(name)
    ? undefined
    : 'must be a DNS-1123 subdomain: lowercase letters, digits, "-" and ".", starting and ending with a letter or digit';
}

/** Why `key` is not a label or annotation key (`[prefix/]name`), or undefined. */
export function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) {
    return 'a key has at most one "/" (an optional DNS subdomain prefix, then a name)';
  }
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    if (parts[0] === '') {
      return 'the prefix before "/" must not be empty';
    }
    const prefix = dns1123SubdomainProblem(parts[0]);
    if (prefix) {
      return `prefix ${quote(parts[0])} ${prefix}`;
    }
  }
  if (name.length === 0 || name.length > 63) {
    return `the name part must be 1 to 63 characters, got ${name.length}`;
  }
  return QUALIFIED_NAME.test(name)
    ? undefined
    : 'the name part must be letters, digits, "-", "_" and ".", starting and ending with a letter or digit';
}

/** Why `value` is not a label value (empty, or at most 63 of letters, digits, `-_.` inside), or undefined. */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63) {
    return `must be no more than 63 characters, got ${value.length}`;
  }
  return LABEL_VALUE.test(value)
    ? undefined
    : 'must be empty or letters, digits, "-", "_" and ".", starting and ending with a letter or digit';
}

/** Why `name` is not an IANA service name (a named container port), or undefined. */
export function ianaSvcNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 15) {
    return `must be 1 to 15 characters, got ${name.length}`;
  }
  if (!/^[-a-z0-9]+$/.test(name)) {
    return 'must be lowercase letters, digits and "-"';
  }
  if (!/[a-z]/.test(name)) {
    return 'must contain at least one letter';
  }
  if (name.includes('--')) {
    return 'must not contain consecutive hyphens';
  }
  return name.startsWith('-') || name.endsWith('-') ? 'must not begin or end with a hyphen' : undefined;
}

// ---- names ----------------------------------------------------------------------------------------------------

type NameRule = (name: string) => string | undefined;

const maxLength =
  (limit: number, why: string, inner: NameRule): NameRule =>
  (name) =>
    inner(name) ??
    (name.length > limit ? `must be no more than ${limit} characters (${why}), got ${name.length}` : undefined);

const pathSegment: NameRule = (name) => {
  if (name === '.' || name === '..') {
    return 'must not be "." or ".."';
  }
  return /[/%]/.test(name) ? 'must not contain "/" or "%"' : undefined;
};

/**
 * The name rule of each kind, as the API server applies it; kinds not listed take a DNS-1123 subdomain (what the
 * server applies to custom resources too).
 */
const NAME_RULES: Record<string, NameRule> = {
  Namespace: dns1123LabelProblem,
  Service: dns1035LabelProblem,
  // The job controller copies the name into the `job-name` pod label, whose value is capped at 63.
  Job: maxLength(63, 'it becomes the job-name label of its pods', dns1123SubdomainProblem),
  // The CronJob controller appends an 11-character suffix to name each Job.
  CronJob: maxLength(52, 'its Jobs are named after it with an 11-character suffix', dns1123SubdomainProblem),
  Role: pathSegment,
  ClusterRole: pathSegment,
  RoleBinding: pathSegment,
  ClusterRoleBinding: pathSegment,
  // KubeVirt uses the name as the guest's hostname and as the value of the vm.kubevirt.io/name label.
  VirtualMachine: dns1123LabelProblem,
  VirtualMachineInstance: dns1123LabelProblem,
};

/**
 * `metadata.name` by the rule of its kind, `metadata.namespace` as a DNS-1123 label, and no two objects of one kind
 * with one name in one namespace (the API server would keep only the last one applied).
 */
export function checkNames(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  const seen = new Set<string>();
  for (const doc of docs.filter(isObject)) {
    const meta = isObject(doc.metadata) ? doc.metadata : {};
    if (typeof meta.name === 'string') {
      const group =
        typeof doc.apiVersion === 'string' && doc.apiVersion.includes('/') ? doc.apiVersion.split('/')[0] : '';
      const key = [group, doc.kind, meta.namespace ?? '', meta.name].join('\u0000');
      if (seen.has(key)) {
        problems.push(
          problemAt(doc, 'metadata.name', `${quote(meta.name)} is used by another ${doc.kind} in the same namespace`),
        );
      }
      seen.add(key);
      const problem = (NAME_RULES[doc.kind] ?? dns1123SubdomainProblem)(meta.name);
      if (problem) {
        problems.push(problemAt(doc, 'metadata.name', `${quote(meta.name)} ${problem}`));
      }
    } else if (typeof meta.generateName !== 'string') {
      problems.push(problemAt(doc, 'metadata.name', 'a name is required'));
    }
    if (typeof meta.namespace === 'string') {
      const problem = dns1123LabelProblem(meta.namespace);
      if (problem) {
        problems.push(problemAt(doc, 'metadata.namespace', `${quote(meta.namespace)} ${problem}`));
      }
    }
  }
  return problems;
}

// ---- labels, annotations, selectors -----------------------------------------------------------------------------

/**
 * Label keys and values wherever labels appear (every `metadata`, `matchLabels`, a Service's selector), selector
 * expression keys, and annotation keys (values are free text, 256 KiB in total).
 */
export function checkLabels(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const doc of docs.filter(isObject)) {
    const labelMap = (map: unknown, path: string) => {
      if (!isObject(map)) {
        return;
      }
      for (const [key, value] of Object.entries(map)) {
        const keyProblem = qualifiedNameProblem(key);
        if (keyProblem) {
          problems.push(problemAt(doc, joinPath(path, key), `label key ${quote(key)}: ${keyProblem}`));
        }
        const valueProblem = typeof value === 'string' ? labelValueProblem(value) : 'must be a string';
        if (valueProblem) {
          problems.push(problemAt(doc, joinPath(path, key), `label value ${quote(value)} ${valueProblem}`));
        }
      }
    };
    walk(doc, '', (value, path, key, parentKey) => {
      if (key === 'labels' && parentKey === 'metadata') {
        labelMap(value, path);
      } else if (key === 'matchLabels' || key === 'nodeSelector') {
        labelMap(value, path);
      } else if (key === 'annotations' && parentKey === 'metadata' && isObject(value)) {
        for (const annotation of Object.keys(value)) {
          const problem = qualifiedNameProblem(annotation);
          if (problem) {
            problems.push(
              problemAt(doc, joinPath(path, annotation), `annotation key ${quote(annotation)}: ${problem}`),
            );
          }
        }
        const size = Object.entries(value).reduce((n, [k, v]) => n + k.length + String(v).length, 0);
        if (size > 256 * 1024) {
          problems.push(problemAt(doc, path, `annotations must total at most 256 KiB, got ${size} bytes`));
        }
      } else if (key === 'matchExpressions' && Array.isArray(value)) {
        value.forEach((expression, i) => {
          const problem =
            isObject(expression) && typeof expression.key === 'string'
              ? qualifiedNameProblem(expression.key)
              : undefined;
          if (problem) {
            problems.push(
              problemAt(doc, `${joinPath(path, i)}.key`, `selector key ${quote(expression.key)}: ${problem}`),
            );
          }
        });
      }
    });
    if ((doc.kind === 'Service' || doc.kind === 'ReplicationController') && isObject(doc.spec)) {
      labelMap(doc.spec.selector, 'spec.selector');
    }
  }
  return problems;
}

/**
 * A workload's selector is not empty and matches its own template's labels (Deployment, ReplicaSet, StatefulSet,
 * DaemonSet, Job and CronJob when they set one, VirtualMachineInstanceReplicaSet, VirtualMachinePool).
 */
export function checkWorkloadSelectors(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const template of [...podTemplates(docs), ...vmTemplates(docs)]) {
    if (!template.selectorPath) {
      continue;
    }
    const selector = get(template.doc, template.selectorPath);
    const optional = ['Job', 'CronJob'].includes(template.doc.kind);
    if (selector === undefined && optional) {
      continue;
    }
    const simple = template.doc.kind === 'ReplicationController';
    if (
      !isObject(selector) ||
      Object.keys(simple ? selector : { ...selector.matchLabels, ...expressions(selector) }).length === 0
    ) {
      problems.push(
        problemAt(template.doc, template.selectorPath, 'an empty selector is invalid: it would select every pod'),
      );
      continue;
    }
    const mismatch = simple
      ? matchLabelsMismatch(selector, template.labels)
      : selectorMismatch(selector, template.labels);
    if (mismatch) {
      problems.push(
        problemAt(
          template.doc,
          template.selectorPath,
          `does not match the template labels ${quote(template.labels)} (at ${template.labelsPath}): ${mismatch}`,
        ),
      );
    }
  }
  return problems;
}

/**
 * A Service's selector selects something in the same set: the pod labels of a workload or the template labels of a
 * VirtualMachine in its namespace. A named `targetPort` must be a named container port of a selected pod (VMs have
 * no named ports).
 */
export function checkServiceSelectors(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  const pods = podTemplates(docs);
  const vms = vmTemplates(docs);
  for (const service of docs.filter((d) => isObject(d) && d.kind === 'Service' && isObject(d.spec))) {
    const selector = service.spec.selector;
    if (service.spec.type === 'ExternalName' || !isObject(selector) || Object.keys(selector).length === 0) {
      continue;
    }
    const namespace = service.metadata?.namespace;
    const selects = (t: PodTemplate | VmTemplate) =>
      t.doc.metadata?.namespace === namespace && !matchLabelsMismatch(selector, t.labels);
    const selectedPods = pods.filter(selects);
    const selected = [...selectedPods, ...vms.filter(selects)];
    if (selected.length === 0) {
      problems.push(
        problemAt(
          service,
          'spec.selector',
          `${quote(selector)} selects no pod template or VirtualMachine in namespace ${quote(namespace ?? '(none)')}`,
        ),
      );
      continue;
    }
    const ports = Array.isArray(service.spec.ports) ? service.spec.ports : [];
    ports.forEach((port: any, i: number) => {
      if (
        isObject(port) &&
        typeof port.targetPort === 'string' &&
        !selectedPods.some((t) => containerPortNames(t.spec).has(port.targetPort))
      ) {
        const names = selected.map((t) => `${t.doc.kind}/${t.doc.metadata?.name}`).join(', ');
        problems.push(
          problemAt(
            service,
            `spec.ports[${i}].targetPort`,
            `${quote(port.targetPort)} is not a named container port of the selected ${names}`,
          ),
        );
      }
    });
  }
  return problems;
}

function containerPortNames(spec: Record<string, any>): Set<string> {
  const names = new Set<string>();
  for (const field of ['initContainers', 'containers']) {
    for (const container of Array.isArray(spec[field]) ? spec[field] : []) {
      for (const port of Array.isArray(container?.ports) ? container.ports : []) {
        if (typeof port?.name === 'string') {
          names.add(port.name);
        }
      }
    }
  }
  return names;
}

function expressions(selector: Record<string, any>): Record<string, unknown> {
  return Array.isArray(selector.matchExpressions) && selector.matchExpressions.length ? { expressions: true } : {};
}

function matchLabelsMismatch(
  matchLabels: Record<string, unknown>,
  labels: Record<string, unknown>,
): string | undefined {
  for (const [key, value] of Object.entries(matchLabels)) {
    if (labels[key] !== value) {
      return `${key}=${String(value)} is ${key in labels ? `${String(labels[key])} there` : 'missing there'}`;
    }
  }
  return undefined;
}

/** Why a LabelSelector does not match `labels`, or undefined when it does. */
export function selectorMismatch(selector: Record<string, any>, labels: Record<string, unknown>): string | undefined {
  const byLabels = isObject(selector.matchLabels) ? matchLabelsMismatch(selector.matchLabels, labels) : undefined;
  if (byLabels) {
    return byLabels;
  }
  for (const expression of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    const { key, operator } = expression ?? {};
    const values: unknown[] = Array.isArray(expression?.values) ? expression.values : [];
    const has = key in labels;
    const ok =
      operator === 'In'
        ? has && values.includes(labels[key])
        : operator === 'NotIn'
          ? !has || !values.includes(labels[key])
          : operator === 'Exists'
            ? has
            : operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) {
      return `expression ${quote(expression)} does not hold`;
    }
    if ((operator === 'In' || operator === 'NotIn') !== values.length > 0) {
      return `expression ${quote(expression)}: In and NotIn need values, Exists and DoesNotExist take none`;
    }
  }
  return undefined;
}

// ---- pods -----------------------------------------------------------------------------------------------------

/**
 * Within each pod template: container and volume names are DNS-1123 labels and unique, every volume mount names a
 * volume, env var names are C-identifier-like (`[-._a-zA-Z][-._a-zA-Z0-9]*`).
 */
export function checkPodSpecs(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const template of podTemplates(docs)) {
    const { doc, spec } = template;
    const volumes: any[] = Array.isArray(spec.volumes) ? spec.volumes : [];
    const volumeNames = uniqueNames(volumes, `${template.path}.volumes`, doc, problems, 'volume');
    const containerList = containers([doc]).filter((c) => c.template.path === template.path);
    uniqueNames(
      containerList.map((c) => c.container),
      '',
      doc,
      problems,
      'container',
      containerList.map((c) => c.path),
    );
    for (const { path, container } of containerList) {
      (Array.isArray(container.volumeMounts) ? container.volumeMounts : []).forEach((mount: any, i: number) => {
        if (isObject(mount) && typeof mount.name === 'string' && !volumeNames.has(mount.name)) {
          problems.push(
            problemAt(
              doc,
              `${path}.volumeMounts[${i}].name`,
              `${quote(mount.name)} is not a volume of this pod (volumes: ${[...volumeNames].join(', ') || 'none'})`,
            ),
          );
        }
      });
      (Array.isArray(container.env) ? container.env : []).forEach((env: any, i: number) => {
        if (isObject(env) && typeof env.name === 'string' && !ENV_VAR_NAME.test(env.name)) {
          problems.push(
            problemAt(
              doc,
              `${path}.env[${i}].name`,
              `${quote(env.name)} is not a valid environment variable name: letters, digits, "_", "-" and ".", not starting with a digit`,
            ),
          );
        }
      });
    }
  }
  return problems;
}

function uniqueNames(
  items: any[],
  listPath: string,
  doc: Manifest,
  problems: ManifestProblem[],
  what: string,
  paths?: string[],
): Set<string> {
  const names = new Set<string>();
  items.forEach((item, i) => {
    const name = item?.name;
    const at = `${paths ? paths[i] : joinPath(listPath, i)}.name`;
    if (typeof name !== 'string') {
      return;
    }
    const problem = dns1123LabelProblem(name);
    if (problem) {
      problems.push(problemAt(doc, at, `${what} name ${quote(name)} ${problem}`));
    }
    if (names.has(name)) {
      problems.push(problemAt(doc, at, `duplicate ${what} name ${quote(name)}`));
    }
    names.add(name);
  });
  return names;
}

// ---- ports ----------------------------------------------------------------------------------------------------

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];

function portNumberProblem(value: unknown): string | undefined {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535
    ? undefined
    : `must be a port number 1-65535, got ${quote(value)}`;
}

/**
 * Container ports: numbers 1-65535, names IANA service names unique within the pod, protocol TCP, UDP or SCTP.
 * Service ports: numbers 1-65535, names DNS-1123 labels, unique, required when there is more than one port, no
 * port and protocol twice, `targetPort` a number 1-65535 or an IANA service name.
 */
export function checkPorts(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  const byTemplate = new Map<PodTemplate, ContainerRef[]>();
  for (const ref of containers(docs)) {
    byTemplate.set(ref.template, [...(byTemplate.get(ref.template) ?? []), ref]);
  }
  for (const [template, refs] of byTemplate) {
    const names = new Set<string>();
    for (const { path, container } of refs) {
      (Array.isArray(container.ports) ? container.ports : []).forEach((port: any, i: number) => {
        const at = `${path}.ports[${i}]`;
        const add = (field: string, message: string) =>
          problems.push(problemAt(template.doc, `${at}.${field}`, message));
        if (!isObject(port)) {
          return;
        }
        const number = portNumberProblem(port.containerPort);
        if (number) {
          add('containerPort', number);
        }
        const host = port.hostPort === undefined ? undefined : portNumberProblem(port.hostPort);
        if (host) {
          add('hostPort', host);
        }
        if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol)) {
          add('protocol', `must be one of ${PROTOCOLS.join(', ')}, got ${quote(port.protocol)}`);
        }
        if (typeof port.name === 'string') {
          const problem = ianaSvcNameProblem(port.name);
          if (problem) {
            add('name', `port name ${quote(port.name)} ${problem}`);
          }
          if (names.has(port.name)) {
            add('name', `duplicate port name ${quote(port.name)} in the pod`);
          }
          names.add(port.name);
        }
      });
    }
  }
  for (const service of docs.filter((d) => isObject(d) && d.kind === 'Service' && isObject(d.spec))) {
    const ports: any[] = Array.isArray(service.spec.ports) ? service.spec.ports : [];
    const names = new Set<string>();
    const numbers = new Set<string>();
    ports.forEach((port, i) => {
      const at = `spec.ports[${i}]`;
      const add = (field: string, message: string) => problems.push(problemAt(service, `${at}.${field}`, message));
      if (!isObject(port)) {
        return;
      }
      const number = portNumberProblem(port.port);
      if (number) {
        add('port', number);
      }
      if (port.nodePort !== undefined && portNumberProblem(port.nodePort)) {
        add('nodePort', portNumberProblem(port.nodePort)!);
      }
      if (typeof port.targetPort === 'string') {
        const problem = ianaSvcNameProblem(port.targetPort);
        if (problem) {
          add('targetPort', `a named targetPort ${problem}, got ${quote(port.targetPort)}`);
        }
      } else if (port.targetPort !== undefined && portNumberProblem(port.targetPort)) {
        add('targetPort', portNumberProblem(port.targetPort)!);
      }
      const protocol = port.protocol ?? 'TCP';
      if (!PROTOCOLS.includes(protocol)) {
        add('protocol', `must be one of ${PROTOCOLS.join(', ')}, got ${quote(protocol)}`);
      }
      if (numbers.has(`${port.port}/${protocol}`)) {
        add('port', `duplicate port ${port.port}/${protocol}`);
      }
      numbers.add(`${port.port}/${protocol}`);
      if (typeof port.name === 'string') {
        const problem = dns1123LabelProblem(port.name);
        if (problem) {
          add('name', `port name ${quote(port.name)} ${problem}`);
        }
        if (names.has(port.name)) {
          add('name', `duplicate port name ${quote(port.name)}`);
        }
        names.add(port.name);
      } else if (ports.length > 1) {
        add('name', 'a name is required when a Service has more than one port');
      }
    });
  }
  return problems;
}

// ---- resources ------------------------------------------------------------------------------------------------

/** Extended resources (e.g. `nvidia.com/gpu`) cannot be overcommitted; cpu, memory, storage and hugepages can. */
function isExtendedResource(name: string): boolean {
  return name.includes('/') && !name.startsWith('kubernetes.io/') && !name.includes('.kubernetes.io/');
}

/**
 * Every request is at most its limit, by exact quantity arithmetic: containers (cpu, memory, any resource) and
 * VirtualMachine domains (KubeVirt checks cpu and memory). An extended resource such as `nvidia.com/gpu` needs a
 * limit, and its request must equal it.
 */
export function checkRequestsWithinLimits(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  const check = (doc: Manifest, path: string, resources: unknown, extendedRules: boolean) => {
    if (!isObject(resources)) {
      return;
    }
    const requests = isObject(resources.requests) ? resources.requests : {};
    const limits = isObject(resources.limits) ? resources.limits : {};
    for (const [name, request] of Object.entries(requests)) {
      const at = joinPath(`${path}.requests`, name);
      const req = parseQuantity(request);
      const lim = parseQuantity(limits[name]);
      if (!req || (limits[name] !== undefined && !lim)) {
        continue; // the schema validator reports quantities that do not parse
      }
      if (extendedRules && isExtendedResource(name)) {
        if (!lim) {
          problems.push(
            problemAt(doc, at, `extended resource ${name} cannot be overcommitted: set a limit equal to the request`),
          );
        } else if (compareQuantities(req, lim) !== 0) {
          problems.push(
            problemAt(
              doc,
              at,
              `extended resource ${name}: request ${quote(request)} must equal the limit ${quote(limits[name])}`,
            ),
          );
        }
      } else if (lim && compareQuantities(req, lim) > 0) {
        problems.push(problemAt(doc, at, `request ${quote(request)} is more than the limit ${quote(limits[name])}`));
      }
    }
  };
  for (const { template, path, container } of containers(docs)) {
    check(template.doc, `${path}.resources`, container.resources, true);
  }
  for (const vm of vmTemplates(docs)) {
    check(vm.doc, `${vm.path}.domain.resources`, vm.spec.domain?.resources, false);
  }
  return problems;
}

// ---- CronJob, Secret, ConfigMap ---------------------------------------------------------------------------------

/** Every CronJob schedule parses as Kubernetes parses it (five cron fields or a descriptor). */
export function checkCronSchedules(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const doc of docs.filter((d) => isObject(d) && d.kind === 'CronJob')) {
    const schedule = doc.spec?.schedule;
    const problem = typeof schedule === 'string' ? cronScheduleProblem(schedule) : 'a schedule is required';
    if (problem) {
      problems.push(problemAt(doc, 'spec.schedule', `${quote(schedule)} is not a valid schedule: ${problem}`));
    }
  }
  return problems;
}

function keyProblem(key: string): string | undefined {
  if (key.length > 253 || !CONFIG_KEY.test(key) || key === '.' || key === '..') {
    return `key ${quote(key)} must be letters, digits, "-", "_" and "." (not "." or ".."), at most 253 characters`;
  }
  return undefined;
}

/**
 * Secret `data` values are base64 (standard alphabet, padded; line breaks ignored as Go's decoder does), keys are
 * valid, and the Secret holds at most 1 MiB.
 */
export function checkSecretData(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const doc of docs.filter((d) => isObject(d) && d.kind === 'Secret')) {
    let size = 0;
    for (const field of ['data', 'stringData']) {
      for (const [key, value] of Object.entries(isObject(doc[field]) ? doc[field] : {})) {
        const at = joinPath(field, key);
        const problem = keyProblem(key);
        if (problem) {
          problems.push(problemAt(doc, at, problem));
        }
        if (typeof value !== 'string') {
          continue;
        }
        if (field === 'data') {
          const compact = value.replace(/[\r\n]/g, '');
          if (!BASE64.test(compact)) {
            // The value is not quoted: it may be a secret that was meant to be encoded.
            problems.push(
              problemAt(
                doc,
                at,
                'is not base64: Secret data must be base64-encoded (or put plain text under stringData)',
              ),
            );
          }
          size += Buffer.from(compact, 'base64').length;
        } else {
          size += Buffer.byteLength(value);
        }
      }
    }
    if (size > 1024 * 1024) {
      problems.push(problemAt(doc, 'data', `a Secret holds at most 1 MiB, got ${size} bytes`));
    }
  }
  return problems;
}

/** ConfigMap keys are valid and not in both `data` and `binaryData`; `binaryData` is base64. */
export function checkConfigMapData(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const doc of docs.filter((d) => isObject(d) && d.kind === 'ConfigMap')) {
    const data = isObject(doc.data) ? doc.data : {};
    const binary = isObject(doc.binaryData) ? doc.binaryData : {};
    for (const [field, map] of [
      ['data', data],
      ['binaryData', binary],
    ] as const) {
      for (const [key, value] of Object.entries(map)) {
        const at = joinPath(field, key);
        const problem = keyProblem(key);
        if (problem) {
          problems.push(problemAt(doc, at, problem));
        }
        if (field === 'binaryData' && typeof value === 'string' && !BASE64.test(value.replace(/[\r\n]/g, ''))) {
          problems.push(problemAt(doc, at, 'is not base64: binaryData must be base64-encoded'));
        }
        if (field === 'binaryData' && key in data) {
          problems.push(problemAt(doc, at, `key ${quote(key)} is in both data and binaryData`));
        }
      }
    }
  }
  return problems;
}

// ---- KubeVirt -------------------------------------------------------------------------------------------------

/**
 * In every VM, VMI, replica set and pool template: each disk has a volume of the same name, each interface a
 * network of the same name, and no name is used twice within disks, volumes, interfaces or networks.
 */
export function checkVmDevices(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const vm of vmTemplates(docs)) {
    const devices = vm.spec.domain?.devices ?? {};
    const names = (list: unknown, path: string, what: string) => {
      const seen = new Set<string>();
      (Array.isArray(list) ? list : []).forEach((item: any, i: number) => {
        if (typeof item?.name !== 'string') {
          return;
        }
        if (seen.has(item.name)) {
          problems.push(problemAt(vm.doc, `${path}[${i}].name`, `duplicate ${what} name ${quote(item.name)}`));
        }
        seen.add(item.name);
      });
      return seen;
    };
    const volumes = names(vm.spec.volumes, `${vm.path}.volumes`, 'volume');
    const networks = names(vm.spec.networks, `${vm.path}.networks`, 'network');
    const pairs = [
      { list: devices.disks, field: 'disks', what: 'disk', targets: volumes, target: 'volume', targetField: 'volumes' },
      {
        list: devices.interfaces,
        field: 'interfaces',
        what: 'interface',
        targets: networks,
        target: 'network',
        targetField: 'networks',
      },
    ];
    for (const { list, field, what, targets, target, targetField } of pairs) {
      const path = `${vm.path}.domain.devices.${field}`;
      names(list, path, what);
      (Array.isArray(list) ? list : []).forEach((item: any, i: number) => {
        if (typeof item?.name === 'string' && !targets.has(item.name)) {
          problems.push(
            problemAt(
              vm.doc,
              `${path}[${i}].name`,
              `${what} ${quote(item.name)} has no ${target} of the same name in ${vm.path}.${targetField} (${[...targets].join(', ') || 'none'})`,
            ),
          );
        }
      });
    }
  }
  return problems;
}

/**
 * KubeVirt's admission rules for a VM that no schema holds: `running` and `runStrategy` are exclusive, memory is
 * requested (`resources.requests.memory` or `memory.guest`), Hyper-V spinlocks retry at least 4096 times, at most
 * one network is the pod network.
 */
export function checkVmSpecs(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const doc of docs.filter((d) => isObject(d) && d.kind === 'VirtualMachine' && isObject(d.spec))) {
    if (doc.spec.running !== undefined && doc.spec.runStrategy !== undefined) {
      problems.push(problemAt(doc, 'spec.running', 'running and runStrategy are mutually exclusive: set one'));
    }
  }
  for (const vm of vmTemplates(docs)) {
    const domain = isObject(vm.spec.domain) ? vm.spec.domain : {};
    if (get(domain, 'resources.requests.memory') === undefined && get(domain, 'memory.guest') === undefined) {
      problems.push(
        problemAt(vm.doc, `${vm.path}.domain`, 'no memory requested: set resources.requests.memory or memory.guest'),
      );
    }
    const spinlocks = get(domain, 'features.hyperv.spinlocks.spinlocks');
    if (typeof spinlocks === 'number' && spinlocks < 4096) {
      problems.push(
        problemAt(
          vm.doc,
          `${vm.path}.domain.features.hyperv.spinlocks.spinlocks`,
          `must be at least 4096, got ${spinlocks}`,
        ),
      );
    }
    const podNetworks = (Array.isArray(vm.spec.networks) ? vm.spec.networks : [])
      .map((n: any, i: number) => (isObject(n?.pod) ? i : -1))
      .filter((i: number) => i >= 0);
    if (podNetworks.length > 1) {
      problems.push(
        problemAt(vm.doc, `${vm.path}.networks[${podNetworks[1]}].pod`, 'more than one network is the pod network'),
      );
    }
  }
  return problems;
}

const DATA_VOLUME_URL_SOURCES = ['http', 's3', 'imageio', 'vddk'];
const REGISTRY_SCHEMES = ['docker:', 'oci-archive:', 'image-stream:'];

/**
 * CDI's admission rules for a DataVolume (and a VM's `dataVolumeTemplates`): exactly one of `pvc` and `storage`,
 * with a storage request above zero; a `pvc` has exactly one access mode; exactly one source, or a `sourceRef`;
 * http, s3, imageio and vddk URLs are http(s) URLs; registry URLs are docker://, oci-archive:// or image-stream://.
 */
export function checkDataVolumes(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  const check = (doc: Manifest, path: string, spec: unknown) => {
    if (!isObject(spec)) {
      return;
    }
    const add = (at: string, message: string) => problems.push(problemAt(doc, at ? `${path}.${at}` : path, message));
    const targets = ['pvc', 'storage'].filter((t) => spec[t] !== undefined);
    if (targets.length !== 1) {
      add('', targets.length ? 'set either pvc or storage, not both' : 'a pvc or a storage is required');
    }
    for (const target of targets) {
      const size = parseQuantity(get(spec[target], 'resources.requests.storage'));
      if (!size || size.numerator <= 0n) {
        add(`${target}.resources.requests.storage`, 'a storage request above zero is required');
      }
    }
    const modes = spec.pvc?.accessModes;
    if (spec.pvc !== undefined && (!Array.isArray(modes) || modes.length !== 1)) {
      add('pvc.accessModes', `a pvc takes exactly one access mode, got ${quote(modes ?? [])}`);
    }
    const sources = isObject(spec.source) ? Object.keys(spec.source) : [];
    if ((sources.length === 1) === (spec.sourceRef !== undefined)) {
      add(
        'source',
        `exactly one source (or a sourceRef) is required, got ${quote(sources)}${spec.sourceRef ? ' and a sourceRef' : ''}`,
      );
    }
    for (const kind of sources) {
      const url = spec.source[kind]?.url;
      if (DATA_VOLUME_URL_SOURCES.includes(kind) && !/^https?:\/\/[^/\s]/.test(String(url))) {
        add(`source.${kind}.url`, `must be an http:// or https:// URL, got ${quote(url)}`);
      }
      if (
        kind === 'registry' &&
        typeof url === 'string' &&
        !REGISTRY_SCHEMES.some((scheme) => url.startsWith(`${scheme}//`))
      ) {
        add('source.registry.url', `must start with docker://, oci-archive:// or image-stream://, got ${quote(url)}`);
      }
    }
  };
  for (const doc of docs.filter(isObject)) {
    if (doc.kind === 'DataVolume') {
      check(doc, 'spec', doc.spec);
    }
    if (doc.kind === 'VirtualMachine' && Array.isArray(doc.spec?.dataVolumeTemplates)) {
      doc.spec.dataVolumeTemplates.forEach((t: any, i: number) =>
        check(doc, `spec.dataVolumeTemplates[${i}].spec`, t?.spec),
      );
    }
  }
  return problems;
}

// ---- all of them ----------------------------------------------------------------------------------------------

export const K8S_RULES: readonly Rule[] = [
  { name: 'names', check: checkNames },
  { name: 'labels and annotations', check: checkLabels },
  { name: 'workload selectors match their templates', check: checkWorkloadSelectors },
  { name: 'Service selectors select a workload or VM', check: checkServiceSelectors },
  { name: 'pod specs', check: checkPodSpecs },
  { name: 'ports', check: checkPorts },
  { name: 'requests within limits', check: checkRequestsWithinLimits },
  { name: 'CronJob schedules', check: checkCronSchedules },
  { name: 'Secret data', check: checkSecretData },
  { name: 'ConfigMap data', check: checkConfigMapData },
  { name: 'VM disks and interfaces', check: checkVmDevices },
  { name: 'VM specs', check: checkVmSpecs },
  { name: 'DataVolumes', check: checkDataVolumes },
];

/** Every rule over every document (the items of a `v1` `List` taken as documents). */
export function checkConformance(docs: readonly Manifest[]): ManifestProblem[] {
  const expanded = expandLists(docs);
  return K8S_RULES.flatMap((rule) => rule.check(expanded));
}

/** Throws one error listing every problem as `Kind/name: path: message`. */
export function expectConformance(docs: readonly Manifest[]): void {
  expectNoProblems(checkConformance(docs), 'Kubernetes rules');
}

/** Calls `visit` for every value in `value` with its path, its key and its parent's key. */
function walk(
  value: unknown,
  path: string,
  visit: (value: unknown, path: string, key: string, parentKey: string) => void,
  key = '',
  parentKey = '',
): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, joinPath(path, i), visit, key, parentKey));
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const at = joinPath(path, k);
      visit(v, at, k, key);
      walk(v, at, visit, k, key);
    }
  }
}
