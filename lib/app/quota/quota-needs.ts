import { compare } from '../../util/sort';
import { parseCpuMillicores, parseMemoryBytes } from '../../base/quantities';

/**
 * What a namespace needs at its peak, read from rendered API objects: pods per workload, requests and limits per pod
 * as Kubernetes counts them, claims. `NamespaceQuota` computes its amounts from it.
 */

/** What one workload needs at its peak. */
export interface WorkloadNeed {
  /** e.g. `Deployment/web`. */
  readonly workload: string;
  /** Pods at the peak: replicas (or the autoscaler's maximum) plus the rolling-update surge. */
  readonly pods: number;
  /** Per pod, the way the scheduler and the quota count it: max(sum of containers, largest init container). */
  readonly perPod: PodResourceAmounts;
}

/** Requests and limits of one pod, in millicores and bytes. */
export interface PodResourceAmounts {
  readonly requestsCpuMillicores: number;
  readonly requestsMemoryBytes: number;
  readonly limitsCpuMillicores: number;
  readonly limitsMemoryBytes: number;
}

/** What the namespace needs at its peak, before headroom. */
export interface NamespaceNeeds extends PodResourceAmounts {
  readonly persistentVolumeClaims: number;
  /** Sorted by workload. */
  readonly workloads: readonly WorkloadNeed[];
  /**
   * Containers (and VMs) without a limit, by resource, as `Deployment/web: container "web"`. Sorted. A quota that
   * bounds `limits.cpu` or `limits.memory` rejects their pods, so it bounds a limit only when its list is empty.
   */
  readonly unlimited: UnlimitedContainers;
}

/** Containers (and VMs) without a cpu limit and without a memory limit. */
export interface UnlimitedContainers {
  readonly cpu: readonly string[];
  readonly memory: readonly string[];
}

/** The kinds that computeNeeds reads: workloads, autoscalers, claims, and KubeVirt/CDI objects. */
export const COUNTED_KINDS = new Set([
  'Deployment',
  'StatefulSet',
  'ReplicaSet',
  'ReplicationController',
  'DaemonSet',
  'Job',
  'CronJob',
  'Pod',
  'HorizontalPodAutoscaler',
  'PersistentVolumeClaim',
  'DataVolume',
  'VirtualMachine',
]);
const DEFAULT_MAX_SURGE = '25%';

/**
 * What the namespace of `docs` needs at its peak, before headroom: every workload's pods, per pod the larger of its
 * containers' sum and its largest init container, every claim. A DaemonSet counts `nodeCount` pods.
 */
export function namespaceNeeds(docs: any[], nodeCount: number): NamespaceNeeds {
  const autoscaled = new Map<string, number>();
  for (const doc of docs.filter((d) => d.kind === 'HorizontalPodAutoscaler')) {
    const ref = doc.spec?.scaleTargetRef ?? {};
    const key = `${ref.kind}/${ref.name}`;
    autoscaled.set(key, Math.max(autoscaled.get(key) ?? 0, Number(doc.spec?.maxReplicas ?? 0)));
  }

  const workloads: WorkloadNeed[] = [];
  const unlimited: Unlimited = { cpu: [], memory: [] };
  let claims = 0;
  for (const doc of docs) {
    const workload = `${doc.kind}/${doc.metadata?.name}`;
    if (doc.kind === 'PersistentVolumeClaim' || doc.kind === 'DataVolume') {
      claims += 1;
    } else if (doc.kind === 'VirtualMachine') {
      claims += (doc.spec?.dataVolumeTemplates ?? []).length;
    }
    const vmNeed =
      doc.kind === 'VirtualMachine'
        ? virtualMachineNeed(doc, workload, unlimited)
        : // A blank DataVolume (a VM's data disk) gets an importer pod too, which writes its empty disk image.
          doc.kind === 'DataVolume' && (doc.spec?.source?.http || doc.spec?.source?.registry || doc.spec?.source?.blank)
          ? { workload, pods: 1, perPod: CDI_IMPORTER_POD }
          : undefined;
    if (vmNeed) {
      workloads.push(vmNeed);
      continue;
    }
    const shape = podShape(doc, nodeCount, autoscaled.get(workload));
    if (!shape) {
      continue;
    }
    claims += shape.claimsPerReplica * shape.replicas;
    workloads.push({ workload, pods: shape.pods, perPod: podAmounts(shape.podSpec, workload, unlimited) });
  }
  workloads.sort((a, b) => compare(a.workload, b.workload));

  const total = (key: keyof PodResourceAmounts) => workloads.reduce((sum, w) => sum + w.pods * w.perPod[key], 0);
  return {
    requestsCpuMillicores: total('requestsCpuMillicores'),
    requestsMemoryBytes: total('requestsMemoryBytes'),
    limitsCpuMillicores: total('limitsCpuMillicores'),
    limitsMemoryBytes: total('limitsMemoryBytes'),
    persistentVolumeClaims: claims,
    workloads,
    unlimited: {
      cpu: [...new Set(unlimited.cpu)].sort(compare),
      memory: [...new Set(unlimited.memory)].sort(compare),
    },
  };
}

/** What the readers fill while they read: containers without a limit, by resource. */
interface Unlimited {
  readonly cpu: string[];
  readonly memory: string[];
}

interface PodShape {
  readonly podSpec: any;
  /** Replicas at the peak, without surge: what volumeClaimTemplates multiply by. */
  readonly replicas: number;
  readonly pods: number;
  readonly claimsPerReplica: number;
}

function podShape(doc: any, nodeCount: number, autoscalerMax: number | undefined): PodShape | undefined {
  const spec = doc.spec ?? {};
  const replicasOf = () => Math.max(spec.replicas ?? (autoscalerMax === undefined ? 1 : 0), autoscalerMax ?? 0);
  switch (doc.kind) {
    case 'Deployment': {
      const replicas = replicasOf();
      const rolling = (spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
      const surge = rolling ? scaled(spec.strategy?.rollingUpdate?.maxSurge ?? DEFAULT_MAX_SURGE, replicas) : 0;
      return { podSpec: spec.template?.spec, replicas, pods: replicas + surge, claimsPerReplica: 0 };
    }
    case 'StatefulSet': {
      const replicas = replicasOf();
      return {
        podSpec: spec.template?.spec,
        replicas,
        pods: replicas,
        claimsPerReplica: (spec.volumeClaimTemplates ?? []).length,
      };
    }
    case 'ReplicaSet':
    case 'ReplicationController': {
      const replicas = replicasOf();
      return { podSpec: spec.template?.spec, replicas, pods: replicas, claimsPerReplica: 0 };
    }
    case 'DaemonSet':
      return { podSpec: spec.template?.spec, replicas: nodeCount, pods: nodeCount, claimsPerReplica: 0 };
    case 'Job':
      return { podSpec: spec.template?.spec, replicas: 1, pods: jobPods(spec), claimsPerReplica: 0 };
    case 'CronJob':
      return {
        podSpec: spec.jobTemplate?.spec?.template?.spec,
        replicas: 1,
        pods: jobPods(spec.jobTemplate?.spec ?? {}),
        claimsPerReplica: 0,
      };
    case 'Pod':
      return { podSpec: spec, replicas: 1, pods: 1, claimsPerReplica: 0 };
    default:
      return undefined;
  }
}

/** KubeVirt v0.59's memory overhead of a virt-launcher pod, rounded up: fixed processes, page tables, per-vCPU tables. */
export const VM_POD_OVERHEAD = {
  fixedBytes: 256 * 1024 ** 2,
  perVcpuBytes: 8 * 1024 ** 2,
  guestMemoryDivisor: 512,
} as const;

/** CDI v1.56's default requests and limits of an importer pod. */
const CDI_IMPORTER_POD: PodResourceAmounts = {
  requestsCpuMillicores: 100,
  requestsMemoryBytes: 60e6,
  limitsCpuMillicores: 750,
  limitsMemoryBytes: 600e6,
};

/** The virt-launcher pod of a running VirtualMachine: its domain's resources plus KubeVirt's overhead. */
function virtualMachineNeed(doc: any, workload: string, unlimited: Unlimited): WorkloadNeed | undefined {
  const spec = doc.spec ?? {};
  if (spec.running === false || spec.runStrategy === 'Halted') {
    return undefined;
  }
  const domain = spec.template?.spec?.domain ?? {};
  const requests = domain.resources?.requests ?? {};
  const limits = domain.resources?.limits ?? {};
  for (const resource of ['cpu', 'memory'] as const) {
    if (limits[resource] === undefined) {
      unlimited[resource].push(`${workload}: the VM`);
    }
  }
  const cpu = (value: unknown) => (value === undefined ? 0 : parseCpuMillicores(value as string | number));
  const memory = (value: unknown) => (value === undefined ? 0 : parseMemoryBytes(value as string | number));
  const vcpus = (domain.cpu?.cores ?? 1) * (domain.cpu?.sockets ?? 1) * (domain.cpu?.threads ?? 1);
  const guest = memory(requests.memory ?? limits.memory ?? domain.memory?.guest);
  const overhead =
    VM_POD_OVERHEAD.fixedBytes +
    vcpus * VM_POD_OVERHEAD.perVcpuBytes +
    Math.ceil(guest / VM_POD_OVERHEAD.guestMemoryDivisor);
  return {
    workload,
    pods: 1,
    perPod: {
      requestsCpuMillicores: cpu(requests.cpu ?? limits.cpu),
      requestsMemoryBytes: guest + overhead,
      limitsCpuMillicores: cpu(limits.cpu),
      limitsMemoryBytes: limits.memory === undefined ? 0 : memory(limits.memory) + overhead,
    },
  };
}

function jobPods(jobSpec: any): number {
  const parallelism = jobSpec.parallelism ?? 1;
  return jobSpec.completions === undefined ? parallelism : Math.min(parallelism, jobSpec.completions);
}

/** An int-or-percent (`maxSurge`) of `replicas`, percentages rounded up as the Deployment controller does. */
function scaled(value: number | string, replicas: number): number {
  if (typeof value === 'number') {
    return value;
  }
  const percent = /^(\d+)%$/.exec(value);
  return percent ? Math.ceil((Number(percent[1]) * replicas) / 100) : Number(value) || 0;
}

/** Effective requests and limits of one pod, noting containers without a limit. */
function podAmounts(podSpec: any, workload: string, unlimited: Unlimited): PodResourceAmounts {
  const containers: any[] = podSpec?.containers ?? [];
  const initContainers: any[] = podSpec?.initContainers ?? [];
  const amounts = (container: any): PodResourceAmounts => {
    const requests = container.resources?.requests ?? {};
    const limits = container.resources?.limits ?? {};
    for (const resource of ['cpu', 'memory'] as const) {
      if (limits[resource] === undefined) {
        unlimited[resource].push(`${workload}: container "${container.name}"`);
      }
    }
    const cpu = (value: unknown) => (value === undefined ? 0 : parseCpuMillicores(value as string | number));
    const memory = (value: unknown) => (value === undefined ? 0 : parseMemoryBytes(value as string | number));
    // Kubernetes defaults a missing request to the limit.
    return {
      requestsCpuMillicores: cpu(requests.cpu ?? limits.cpu),
      requestsMemoryBytes: memory(requests.memory ?? limits.memory),
      limitsCpuMillicores: cpu(limits.cpu),
      limitsMemoryBytes: memory(limits.memory),
    };
  };
  const app = containers.map(amounts);
  const init = initContainers.map(amounts);
  const effective = (key: keyof PodResourceAmounts) =>
    Math.max(
      app.reduce((sum, a) => sum + a[key], 0),
      ...init.map((a) => a[key]),
    );
  return {
    requestsCpuMillicores: effective('requestsCpuMillicores'),
    requestsMemoryBytes: effective('requestsMemoryBytes'),
    limitsCpuMillicores: effective('limitsCpuMillicores'),
    limitsMemoryBytes: effective('limitsMemoryBytes'),
  };
}
