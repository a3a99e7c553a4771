import { shellCommand, shellFlag } from '../../util/shell-words';
import { ComposeNetworkPolicies } from '../../base/network-policy';
import { admits, policiesSelecting } from '../policy-admission';
import type { Rendered, RenderedObject } from '../rendered';
import { Markdown, podSpec } from './runbook-text';
import { compare } from '../../util/sort';

/** The image of the temporary test pods (it has `nslookup` and a `nc` with `-z`). */
export const TEST_POD_IMAGE = 'busybox:1.36';

const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'];

/**
 * The runbook's Troubleshoot section: pod start-up, Service communication (a DNS and a connection test pod per
 * Service), storage and configuration, with this app's objects.
 */
export function renderTroubleshoot(md: Markdown, rendered: Rendered): void {
  const ns = rendered.project.composeApp.namespace;
  const objects = rendered.waves.flatMap((w) => w.objects);
  const ofKind = (kind: string) => objects.filter((o) => o.kind === kind).sort((a, b) => compare(a.name, b.name));
  md.heading(3, 'Pod start-up');
  md.para(
    'A pod that is not `Running` and ready: list the pods, describe the pod (events: image pulls, scheduling,',
    'quota, probes), and read its logs. The init containers `wait-*` hold a pod until its dependencies are up;',
    'their logs say what they wait for.',
  );
  const startup = [`kubectl get pods -n ${ns}`];
  for (const object of objects
    .filter((o) => WORKLOAD_KINDS.includes(o.kind) && o.kind !== 'CronJob')
    .sort((a, b) => compare(a.name, b.name))) {
    const ref = `${object.kind.toLowerCase()}/${object.name}`;
    startup.push(`kubectl describe pod -l app=${object.name} -n ${ns}`);
    startup.push(`kubectl logs ${ref} -n ${ns}`);
    for (const init of podSpec(object.manifest)?.initContainers ?? []) {
      startup.push(`kubectl logs ${ref} -c ${init.name} -n ${ns}`);
    }
  }
  const cronJobs = ofKind('CronJob');
  if (cronJobs.length > 0) {
    startup.push(`kubectl get cronjobs,jobs -n ${ns}`);
    for (const cronJob of cronJobs) {
      startup.push(`kubectl create job ${cronJob.name}-now --from=cronjob/${cronJob.name} -n ${ns}`);
    }
  }
  md.sh(startup);
  md.heading(3, 'Service communication');
  md.para(
    'A Service without endpoints selects no ready pod. A temporary pod resolves each Service name; a second one',
    'connects to its first port, carrying the labels of a workload whose network policy lets it reach that port (read',
    "from the generated policies; a failing readiness probe keeps it out of that workload's Service). The test pods carry",
    'requests and limits because the namespace quota requires them; `--override-type=strategic` merges them into the',
    'container `kubectl run` makes, which keeps its image and command.',
  );
  const comm = [`kubectl get endpoints -n ${ns}`];
  const connectTest = connectTester(
    objects,
    ofKind('NetworkPolicy').map((o) => o.manifest),
  );
  for (const service of ofKind('Service')) {
    comm.push(`kubectl describe service ${service.name} -n ${ns}`);
    comm.push(testPod(`dns-${service.name}`, ns, {}, false, ['nslookup', `${service.name}.${ns}.svc.cluster.local`]));
    const connect = connectTest(service);
    if (connect.labels) {
      comm.push(
        testPod(`connect-${service.name}`, ns, connect.labels, connect.selectedByService, [
          'nc',
          '-z',
          '-w',
          '3',
          service.name,
          `${connect.port}`,
        ]),
      );
    } else if (connect.port !== undefined) {
      comm.push(
        `# ${service.name}:${connect.port}: no workload's policy reaches it; test from a pod that uses it (kubectl exec)`,
      );
    }
  }
  md.sh(comm);
  md.heading(3, 'Storage');
  const claims = ofKind('PersistentVolumeClaim');
  md.para(
    'A claim stuck in `Pending` has no volume: its events say why (no default storage class, no capacity, an',
    'access mode the storage class lacks).',
  );
  md.sh([
    `kubectl get pvc -n ${ns}`,
    ...claims.map((c) => `kubectl describe pvc ${c.name} -n ${ns}`),
    'kubectl get pv',
  ]);
  md.heading(3, 'Configuration');
  md.para(
    'A pod that fails with `CreateContainerConfigError` refers to a ConfigMap, Secret or key that does not exist.',
    '`describe secret` lists the keys and their sizes, never the values: a key of 0 bytes is empty.',
  );
  md.sh([
    `kubectl get configmap -n ${ns}`,
    ...ofKind('ConfigMap').map((c) => `kubectl describe configmap ${c.name} -n ${ns}`),
    `kubectl get secrets -n ${ns}`,
    ...ofKind('Secret').map((c) => `kubectl describe secret ${c.name} -n ${ns}`),
  ]);
}

/** The port a connectivity test tries, and the labels of a test pod the generated policies let reach it. */
interface ConnectTest {
  readonly port?: number;
  readonly labels?: Readonly<Record<string, string>>;
  /** True when a Service selects those labels: the test pod must then never be ready. */
  readonly selectedByService: boolean;
}

/**
 * For a Service's first TCP port: a label set from the generated policies (a workload's pod selector plus the target's
 * network labels) that the policies admit from the test pod to the Service's pods on the target port. Workloads that
 * no Service selects come first, then by name. What does not depend on the Service is computed once, and a candidate
 * is first tried against its own policy's egress (enough for the egress side) before the whole set is read, so that
 * an app of a thousand services stays linear.
 */
function connectTester(
  objects: readonly RenderedObject[],
  policies: readonly any[],
): (service: RenderedObject) => ConnectTest {
  const matches = (labels: Readonly<Record<string, string>>, wanted: Readonly<Record<string, string>>) =>
    Object.keys(wanted).length > 0 && Object.entries(wanted).every(([k, v]) => labels[k] === v);
  const selectors: Record<string, string>[] = objects
    .filter((o) => o.kind === 'Service')
    .map((o) => o.manifest.spec?.selector ?? {});
  const templates = objects
    .map((o) =>
      o.kind === 'VirtualMachine' ? o.manifest.spec?.template?.metadata?.labels : podTemplateLabels(o.manifest),
    )
    .filter((labels): labels is Record<string, string> => labels !== undefined);
  // The templates by each of their labels, in order: a selector's match is among those that carry its first label,
  // so that finding the target of each of a thousand Services does not read every template.
  const byLabel = new Map<string, Record<string, string>[]>();
  for (const labels of templates) {
    for (const entry of Object.entries(labels)) {
      fileUnder(byLabel, JSON.stringify(entry), labels);
    }
  }
  // The selectors by their first label: one that matches a label set is among those filed under one of its labels.
  const selectorsByFirst = new Map<string, Record<string, string>[]>();
  for (const selector of selectors) {
    const first = Object.entries(selector)[0];
    if (first !== undefined) {
      fileUnder(selectorsByFirst, JSON.stringify(first), selector);
    }
  }
  const serviceSelects = (labels: Readonly<Record<string, string>>) =>
    Object.entries(labels).some(
      (entry) => selectorsByFirst.get(JSON.stringify(entry))?.some((s) => matches(labels, s)) ?? false,
    );
  const networkPrefix = ComposeNetworkPolicies.networkLabel('x').slice(0, -1);
  const candidates = policies
    .map((p) => ({
      policy: p,
      name: p.metadata?.name ?? '',
      labels: (p.spec?.podSelector?.matchLabels ?? {}) as Record<string, string>,
    }))
    .filter((c) => Object.keys(c.labels).length > 0)
    .map((c) => ({ ...c, selected: serviceSelects(c.labels) }))
    .sort((a, b) => Number(a.selected) - Number(b.selected) || compare(a.name, b.name));
  const selecting = policiesSelecting(policies);
  return (service) => {
    const port = service.manifest.spec?.ports?.[0];
    if (!port || (port.protocol ?? 'TCP') !== 'TCP') {
      return { selectedByService: false };
    }
    const selector: Record<string, string> = service.manifest.spec?.selector ?? {};
    const first = Object.entries(selector)[0];
    const target = first && byLabel.get(JSON.stringify(first))?.find((labels) => matches(labels, selector));
    const targetPort = { port: typeof port.targetPort === 'number' ? port.targetPort : port.port, protocol: 'TCP' };
    if (!target) {
      return { port: port.port, selectedByService: false };
    }
    const networkLabels = Object.fromEntries(Object.entries(target).filter(([k]) => k.startsWith(networkPrefix)));
    for (const candidate of candidates) {
      const labels = { ...candidate.labels, ...networkLabels };
      if (matches(labels, selector) || !admits([candidate.policy], labels, target, targetPort, 'Egress')) {
        continue;
      }
      if (admits(selecting(labels, target), labels, target, targetPort)) {
        return {
          port: port.port,
          labels,
          selectedByService: candidate.selected || serviceSelects(labels),
        };
      }
    }
    return { port: port.port, selectedByService: false };
  };
}

function podTemplateLabels(manifest: any): Record<string, string> | undefined {
  return manifest?.kind === 'CronJob'
    ? manifest.spec?.jobTemplate?.spec?.template?.metadata?.labels
    : podSpec(manifest)
      ? manifest.spec?.template?.metadata?.labels
      : undefined;
}

/**
 * A `kubectl run` of a throw-away busybox pod. The overrides are a strategic merge (the default, a JSON merge,
 * would replace the container list and lose the image and command): requests and limits (the quota refuses pods
 * without), and a readiness probe that never passes when a Service selects the pod's labels.
 */
function testPod(
  podName: string,
  namespace: string,
  labels: Readonly<Record<string, string>>,
  neverReady: boolean,
  command: readonly string[],
): string {
  const name = podName.slice(0, 63).replace(/-+$/, '');
  const overrides = JSON.stringify({
    spec: {
      containers: [
        {
          name,
          resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '100m', memory: '32Mi' } },
          ...(neverReady ? { readinessProbe: { exec: { command: ['false'] } } } : {}),
        },
      ],
    },
  });
  const sorted = Object.entries(labels).sort(([a], [b]) => compare(a, b));
  return shellCommand(
    'kubectl',
    'run',
    name,
    shellFlag('--image', TEST_POD_IMAGE),
    '--rm',
    '-it',
    '--restart=Never',
    '-n',
    namespace,
    ...(sorted.length > 0 ? [shellFlag('--labels', sorted.map(([k, v]) => `${k}=${v}`).join(','))] : []),
    '--override-type=strategic',
    shellFlag('--overrides', overrides),
    '--',
    ...command,
  );
}

/** Adds `value` to the list filed under `key`, starting the list when it is the first. */
function fileUnder<T>(index: Map<string, T[]>, key: string, value: T): void {
  const filed = index.get(key);
  if (filed) {
    filed.push(value);
  } else {
    index.set(key, [value]);
  }
}
