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
import { containers, get, podTemplates, vmTemplates } from './workloads';

/**
 * The project's safety lint over every output (issue 6): secrets stay in Secrets, every container is bounded,
 * nothing is privileged or reaches the host unless the compose file asked for it, pods get no API token they do not
 * need, every namespace starts from default-deny, and unpinned images are flagged.
 */

/** A text written next to the manifests: a runbook, a log, a message. */
export interface SafetyText {
  readonly name: string;
  readonly content: string;
}

export interface SafetyOptions {
  /**
   * The values that must not appear outside a Secret.
   * @default - the decoded `data` and the `stringData` values of every Secret in the documents
   */
  readonly secretValues?: readonly string[];
  /**
   * Other outputs to scan for secret values (a runbook, the CLI's log); problems name them as `text/<name>`.
   * @default - none
   */
  readonly texts?: readonly SafetyText[];
  /**
   * Workloads (by `metadata.name`) that may be privileged, use host namespaces or add capabilities, because the
   * compose file said so.
   * @default - none
   */
  readonly allowPrivileged?: readonly string[];
  /**
   * Workloads (by `metadata.name`) that need the Kubernetes API (e.g. a wait on another resource) and so may mount
   * a service account token.
   * @default - none
   */
  readonly allowServiceAccountToken?: readonly string[];
  /**
   * Secret values shorter than this are not searched for: `1`, `no` or `app` would match unrelated text.
   * @default 4
   */
  readonly minSecretLength?: number;
}

export interface SafetyReport {
  /** Findings that fail a test. */
  readonly problems: ManifestProblem[];
  /** Findings to show, not to fail on: unpinned images. */
  readonly warnings: ManifestProblem[];
}

/** Every safety rule over every document (the items of a `v1` `List` taken as documents) and the extra texts. */
export function checkSafety(input: readonly Manifest[], options: SafetyOptions = {}): SafetyReport {
  const docs = expandLists(input);
  return {
    problems: [
      ...checkSecretLeaks(docs, options),
      ...checkContainerResources(docs),
      ...checkPrivileged(docs, options.allowPrivileged),
      ...checkHostPath(docs),
      ...checkServiceAccountTokens(docs, options.allowServiceAccountToken),
      ...checkDefaultDeny(docs),
    ],
    warnings: checkImagePins(docs),
  };
}

/** Throws one error listing every safety problem; warnings do not throw. */
export function expectSafe(docs: readonly Manifest[], options: SafetyOptions = {}): SafetyReport {
  const report = checkSafety(docs, options);
  expectNoProblems(report.problems, 'safety rules');
  return report;
}

// ---- secrets --------------------------------------------------------------------------------------------------

interface SecretValue {
  readonly value: string;
  /** Where it came from, for the message: never the value itself. */
  readonly source: string;
}

function secretValuesOf(docs: readonly Manifest[], options: SafetyOptions): SecretValue[] {
  const min = options.minSecretLength ?? 4;
  const values: SecretValue[] = [];
  if (options.secretValues) {
    options.secretValues.forEach((value, i) => values.push({ value, source: `secretValues[${i}]` }));
  } else {
    for (const secret of docs.filter((d) => isObject(d) && d.kind === 'Secret')) {
      const name = secret.metadata?.name;
      for (const [key, value] of Object.entries(isObject(secret.data) ? secret.data : {})) {
        if (typeof value === 'string') {
          values.push({ value: Buffer.from(value, 'base64').toString('utf-8'), source: `Secret/${name} data.${key}` });
        }
      }
      for (const [key, value] of Object.entries(isObject(secret.stringData) ? secret.stringData : {})) {
        if (typeof value === 'string') {
          values.push({ value, source: `Secret/${name} stringData.${key}` });
        }
      }
    }
  }
  return values.filter((s) => s.value.length >= min);
}

/**
 * No secret value in plain sight: container env values, commands and args, ConfigMap data (binaryData decoded),
 * labels and annotations anywhere, VM cloud-init user and network data, and the extra texts. Messages name the
 * secret's source, never its value.
 */
export function checkSecretLeaks(docs: readonly Manifest[], options: SafetyOptions = {}): ManifestProblem[] {
  const secrets = secretValuesOf(docs, options);
  const problems: ManifestProblem[] = [];
  if (secrets.length === 0) {
    return problems;
  }
  const scan = (text: unknown, report: (source: string) => void) => {
    if (typeof text !== 'string') {
      return;
    }
    for (const secret of secrets) {
      if (text.includes(secret.value)) {
        report(secret.source);
      }
    }
  };
  const leak = (doc: Manifest, path: string) => (source: string) =>
    problems.push(problemAt(doc, path, `holds the value of ${source} in plain text; reference the Secret instead`));

  for (const doc of docs.filter((d) => isObject(d) && d.kind !== 'Secret')) {
    walkMetadata(doc, (map, path) => {
      for (const [key, value] of Object.entries(map)) {
        scan(key, leak(doc, joinPath(path, key)));
        scan(value, leak(doc, joinPath(path, key)));
      }
    });
    if (doc.kind === 'ConfigMap') {
      for (const [key, value] of Object.entries(isObject(doc.data) ? doc.data : {})) {
        scan(value, leak(doc, joinPath('data', key)));
      }
      for (const [key, value] of Object.entries(isObject(doc.binaryData) ? doc.binaryData : {})) {
        scan(
          typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf-8') : value,
          leak(doc, joinPath('binaryData', key)),
        );
      }
    }
  }
  for (const { template, path, container } of containers(docs)) {
    (Array.isArray(container.env) ? container.env : []).forEach((env: any, i: number) => {
      scan(env?.value, leak(template.doc, `${path}.env[${i}].value`));
    });
    for (const field of ['command', 'args']) {
      (Array.isArray(container[field]) ? container[field] : []).forEach((arg: unknown, i: number) => {
        scan(arg, leak(template.doc, `${path}.${field}[${i}]`));
      });
    }
  }
  for (const vm of vmTemplates(docs)) {
    (Array.isArray(vm.spec.volumes) ? vm.spec.volumes : []).forEach((volume: any, i: number) => {
      for (const source of ['cloudInitNoCloud', 'cloudInitConfigDrive']) {
        for (const field of ['userData', 'networkData']) {
          scan(volume?.[source]?.[field], leak(vm.doc, `${vm.path}.volumes[${i}].${source}.${field}`));
          const encoded = volume?.[source]?.[`${field}Base64`];
          if (typeof encoded === 'string') {
            scan(
              Buffer.from(encoded, 'base64').toString('utf-8'),
              leak(vm.doc, `${vm.path}.volumes[${i}].${source}.${field}Base64`),
            );
          }
        }
      }
    });
  }
  for (const text of options.texts ?? []) {
    text.content.split('\n').forEach((line, i) => {
      scan(line, (source) =>
        problems.push({
          kind: 'text',
          name: text.name,
          path: `line ${i + 1}`,
          message: `holds the value of ${source} in plain text`,
        }),
      );
    });
  }
  return problems;
}

/** Calls `visit` with every labels and annotations map, at any depth (templates carry their own metadata). */
function walkMetadata(value: unknown, visit: (map: Record<string, unknown>, path: string) => void, path = ''): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => walkMetadata(item, visit, joinPath(path, i)));
    return;
  }
  if (!isObject(value)) {
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    const at = joinPath(path, key);
    if (key === 'metadata' && isObject(child)) {
      for (const field of ['labels', 'annotations']) {
        if (isObject(child[field])) {
          visit(child[field], joinPath(at, field));
        }
      }
    }
    walkMetadata(child, visit, at);
  }
}

// ---- pods -----------------------------------------------------------------------------------------------------

/**
 * Every container and init container requests cpu and memory, and sets a cpu or memory limit wherever a ResourceQuota
 * of its namespace bounds that limit (the quota admission rejects the pod otherwise). A limit is not required
 * elsewhere: compose runs a service without limits unless it sets them.
 */
export function checkContainerResources(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  const bounded = new Map<string, Set<string>>();
  for (const quota of docs.filter((d) => d.kind === 'ResourceQuota')) {
    const keys = bounded.get(quota.metadata?.namespace ?? '') ?? new Set<string>();
    Object.keys(quota.spec?.hard ?? {})
      .filter((key) => key === 'limits.cpu' || key === 'limits.memory')
      .forEach((key) => keys.add(key));
    bounded.set(quota.metadata?.namespace ?? '', keys);
  }
  for (const { template, path, container } of containers(docs)) {
    if (path.includes('.ephemeralContainers[')) {
      continue; // ephemeral containers may not set resources at all
    }
    const limits = bounded.get(template.doc.metadata?.namespace ?? '') ?? new Set<string>();
    const missing = [
      'requests.cpu',
      'requests.memory',
      ...['limits.cpu', 'limits.memory'].filter((l) => limits.has(l)),
    ].filter((field) => get(container.resources, field) === undefined);
    if (missing.length) {
      problems.push(
        problemAt(
          template.doc,
          `${path}.resources`,
          `container ${quote(container.name)} sets no ${missing.join(', ')}`,
        ),
      );
    }
  }
  return problems;
}

/** Capabilities the Pod Security Standards' baseline profile allows a container to add. */
const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);

/**
 * Nothing privileged unless the workload is allowed: privileged containers, host network/PID/IPC, and capabilities
 * beyond the Pod Security Standards' baseline.
 */
export function checkPrivileged(docs: readonly Manifest[], allowPrivileged: readonly string[] = []): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  const allowed = (doc: Manifest) => allowPrivileged.includes(doc.metadata?.name);
  for (const template of podTemplates(docs)) {
    if (allowed(template.doc)) {
      continue;
    }
    for (const field of ['hostNetwork', 'hostPID', 'hostIPC']) {
      if (template.spec[field] === true) {
        problems.push(
          problemAt(
            template.doc,
            `${template.path}.${field}`,
            `shares the host's namespace (${field}) but the workload is not allowed to`,
          ),
        );
      }
    }
  }
  for (const { template, path, container } of containers(docs)) {
    if (allowed(template.doc)) {
      continue;
    }
    const context = isObject(container.securityContext) ? container.securityContext : {};
    if (context.privileged === true) {
      problems.push(
        problemAt(
          template.doc,
          `${path}.securityContext.privileged`,
          `container ${quote(container.name)} is privileged but the workload is not allowed to be`,
        ),
      );
    }
    const added: unknown[] = Array.isArray(context.capabilities?.add) ? context.capabilities.add : [];
    const beyond = added.filter((c) => typeof c !== 'string' || !BASELINE_CAPABILITIES.has(c.replace(/^CAP_/, '')));
    if (beyond.length) {
      problems.push(
        problemAt(
          template.doc,
          `${path}.securityContext.capabilities.add`,
          `container ${quote(container.name)} adds ${beyond.map((c) => String(c)).join(', ')}, beyond the baseline set, but the workload is not allowed to`,
        ),
      );
    }
  }
  return problems;
}

/** No hostPath volume (pods, PersistentVolumes) and no hostDisk (VMs): they reach into the node's filesystem. */
export function checkHostPath(docs: readonly Manifest[]): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const template of podTemplates(docs)) {
    (Array.isArray(template.spec.volumes) ? template.spec.volumes : []).forEach((volume: any, i: number) => {
      if (isObject(volume?.hostPath)) {
        problems.push(
          problemAt(
            template.doc,
            `${template.path}.volumes[${i}].hostPath`,
            `volume ${quote(volume.name)} mounts the node's ${quote(volume.hostPath.path)}; use a PersistentVolumeClaim`,
          ),
        );
      }
    });
  }
  for (const vm of vmTemplates(docs)) {
    (Array.isArray(vm.spec.volumes) ? vm.spec.volumes : []).forEach((volume: any, i: number) => {
      if (isObject(volume?.hostDisk)) {
        problems.push(
          problemAt(
            vm.doc,
            `${vm.path}.volumes[${i}].hostDisk`,
            `volume ${quote(volume.name)} is a disk image on the node; use a DataVolume`,
          ),
        );
      }
    });
  }
  for (const pv of docs.filter((d) => isObject(d) && d.kind === 'PersistentVolume' && isObject(d.spec?.hostPath))) {
    problems.push(
      problemAt(pv, 'spec.hostPath', `a hostPath PersistentVolume exposes the node's ${quote(pv.spec.hostPath.path)}`),
    );
  }
  return problems;
}

/** Every pod spec sets `automountServiceAccountToken: false`, except the workloads that need the API. */
export function checkServiceAccountTokens(docs: readonly Manifest[], allow: readonly string[] = []): ManifestProblem[] {
  return podTemplates(docs)
    .filter((t) => t.spec.automountServiceAccountToken !== false && !allow.includes(t.doc.metadata?.name))
    .map((t) =>
      problemAt(
        t.doc,
        `${t.path}.automountServiceAccountToken`,
        `must be false (got ${quote(t.spec.automountServiceAccountToken ?? 'unset')}): the workload does not need the Kubernetes API`,
      ),
    );
}

// ---- network --------------------------------------------------------------------------------------------------

/**
 * Every namespace that runs something (a pod template or a VM) or that the output creates has a default-deny
 * NetworkPolicy: empty podSelector, policyTypes Ingress and Egress, no rules. Documents without a namespace are
 * covered by a policy without one (they are applied into the same namespace).
 */
export function checkDefaultDeny(docs: readonly Manifest[]): ManifestProblem[] {
  const namespaces = new Map<string | undefined, Manifest>();
  for (const t of [...podTemplates(docs), ...vmTemplates(docs)]) {
    if (!namespaces.has(t.doc.metadata?.namespace)) {
      namespaces.set(t.doc.metadata?.namespace, t.doc);
    }
  }
  for (const ns of docs.filter((d) => isObject(d) && d.kind === 'Namespace')) {
    namespaces.set(ns.metadata?.name, ns);
  }
  const problems: ManifestProblem[] = [];
  const policies = docs.filter((d) => isObject(d) && d.kind === 'NetworkPolicy' && isObject(d.spec));
  for (const [namespace, doc] of namespaces) {
    const denies = policies.some((p) => p.metadata?.namespace === namespace && isDefaultDeny(p.spec));
    if (!denies) {
      const where =
        namespace === undefined ? 'the namespace the documents are applied to' : `namespace ${quote(namespace)}`;
      problems.push(
        problemAt(
          doc,
          '',
          `${where} has no default-deny NetworkPolicy (podSelector: {}, policyTypes: [Ingress, Egress], no rules)`,
        ),
      );
    }
  }
  return problems;
}

function isDefaultDeny(spec: Record<string, any>): boolean {
  const selector = spec.podSelector;
  const selectsAll =
    isObject(selector) &&
    Object.keys(selector.matchLabels ?? {}).length === 0 &&
    (selector.matchExpressions ?? []).length === 0;
  const types: unknown[] = Array.isArray(spec.policyTypes) ? spec.policyTypes : [];
  const noRules = (field: string) =>
    spec[field] === undefined || (Array.isArray(spec[field]) && spec[field].length === 0);
  return selectsAll && types.includes('Ingress') && types.includes('Egress') && noRules('ingress') && noRules('egress');
}

// ---- images ---------------------------------------------------------------------------------------------------

/** Why an image reference is not pinned (`:latest`, or no tag and no digest), or undefined. */
export function unpinnedImageReason(image: string): string | undefined {
  if (image.includes('@')) {
    return undefined;
  }
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.indexOf(':');
  if (colon < 0) {
    return 'has no tag, which means :latest';
  }
  return lastSegment.slice(colon + 1) === 'latest' ? 'uses the :latest tag' : undefined;
}

/** Warnings for container and VM containerDisk images that are not pinned to a tag or digest. */
export function checkImagePins(docs: readonly Manifest[]): ManifestProblem[] {
  const warnings: ManifestProblem[] = [];
  const check = (doc: Manifest, path: string, image: unknown) => {
    const reason = typeof image === 'string' ? unpinnedImageReason(image) : undefined;
    if (reason) {
      warnings.push(
        problemAt(
          doc,
          path,
          `image ${quote(image)} ${reason}; pin a version tag or a digest so that every node runs the same image`,
        ),
      );
    }
  };
  for (const { template, path, container } of containers(docs)) {
    check(template.doc, `${path}.image`, container.image);
  }
  for (const vm of vmTemplates(docs)) {
    (Array.isArray(vm.spec.volumes) ? vm.spec.volumes : []).forEach((volume: any, i: number) => {
      check(vm.doc, `${vm.path}.volumes[${i}].containerDisk.image`, volume?.containerDisk?.image);
    });
  }
  return warnings;
}
