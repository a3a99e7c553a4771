import { ApiObject, Chart, Lazy, Size } from 'cdk8s';
import { Cpu } from 'cdk8s-plus-27';
import { Construct, IConstruct } from 'constructs';
import { KubeResourceQuota, Quantity } from '../../../imports/k8s';
import { ComposeError } from '../../compose/errors';
import {
  formatCpu,
  formatMemory,
  parseCpuMillicores,
  roundUpCpuMillicores,
  roundUpMemoryBytes,
  sizeToBytes,
} from '../../base/quantities';
import { compare } from '../../util/sort';
import { COUNTED_KINDS, NamespaceNeeds, PodResourceAmounts, namespaceNeeds } from './quota-needs';
import { quotaDocument } from './quota-figures';

export type { NamespaceNeeds, PodResourceAmounts, WorkloadNeed } from './quota-needs';

/** The `spec.hard` keys this quota sets, as Kubernetes names them. */
export enum QuotaKey {
  REQUESTS_CPU = 'requests.cpu',
  REQUESTS_MEMORY = 'requests.memory',
  LIMITS_CPU = 'limits.cpu',
  LIMITS_MEMORY = 'limits.memory',
  PERSISTENT_VOLUME_CLAIMS = 'persistentvolumeclaims',
}

/** Explicit quota amounts; a key left out is computed from what the namespace needs. */
export interface QuotaAmounts {
  /** @default - computed */
  readonly requestsCpu?: Cpu;
  /** @default - computed */
  readonly requestsMemory?: Size;
  /** @default - computed */
  readonly limitsCpu?: Cpu;
  /** @default - computed */
  readonly limitsMemory?: Size;
  /** @default - computed */
  readonly persistentVolumeClaims?: number;
}

/** Props of `NamespaceQuota`: the namespace it covers, its name and the amounts it admits. */
export interface NamespaceQuotaProps {
  /**
   * The namespace the quota covers; every API object of the app in it is counted.
   * @default - the chart's namespace
   */
  readonly namespace?: string;
  /**
   * `metadata.name`.
   * @default 'namespace-quota'
   */
  readonly name?: string;
  /**
   * Amounts to use instead of computed ones. The app must fit them, or synthesis fails naming the key.
   * @default - every key computed
   */
  readonly hard?: QuotaAmounts;
  /**
   * Extra room on computed cpu and memory, in percent of the need: for a pod restarted while its old copy is
   * still terminating, a debug pod, a one-off Job. Claims are counted exactly: they do not churn.
   * @default 20
   */
  readonly headroomPercent?: number;
  /**
   * How many nodes a DaemonSet runs a pod on.
   * @default 3
   */
  readonly nodeCount?: number;
}

const DEFAULT_NAME = 'namespace-quota';
const MIB = 1024 ** 2;
const DEFAULT_HEADROOM_PERCENT = 20;
const DEFAULT_NODE_COUNT = 3;

const RESOURCE_KEYS: ReadonlyArray<[QuotaKey, keyof PodResourceAmounts, 'cpu' | 'memory']> = [
  [QuotaKey.REQUESTS_CPU, 'requestsCpuMillicores', 'cpu'],
  [QuotaKey.REQUESTS_MEMORY, 'requestsMemoryBytes', 'memory'],
  [QuotaKey.LIMITS_CPU, 'limitsCpuMillicores', 'cpu'],
  [QuotaKey.LIMITS_MEMORY, 'limitsMemoryBytes', 'memory'],
];

/**
 * The one ResourceQuota (v1) of a namespace: `spec.hard` with `requests.cpu`, `requests.memory`, `limits.cpu`,
 * `limits.memory` and `persistentvolumeclaims`.
 *
 * It reads the finished construct tree at synthesis, so nobody has to pass numbers: every API object of the app in
 * the quota's namespace counts, in whichever chart it is. A cdk8s-plus workload is read from its own figures (its
 * replicas, strategy and containers' resources), not rendered, unless JSON patches apply to its manifest: then it is
 * rendered and read as written, as every other object is (`quotaDocument`).
 *
 * - Pods per workload at the peak: `spec.replicas` (1 when unset) or, with a HorizontalPodAutoscaler on it, its
 *   `maxReplicas`; a Deployment with the RollingUpdate strategy adds its `maxSurge` (25% rounded up by default,
 *   so 1 extra pod for 1 to 4 replicas). StatefulSets and ReplicaSets add none; a DaemonSet counts `nodeCount` pods;
 *   a Job `min(parallelism, completions)`; a CronJob one run of its Job (use `concurrencyPolicy: Forbid` to make that
 *   a guarantee); a bare Pod one.
 * - Per pod, as Kubernetes counts it: for each of cpu and memory, requests and limits, the larger of the sum over
 *   the containers and the largest init container. A container with a limit but no request requests its limit.
 * - Claims: every PersistentVolumeClaim, each StatefulSet volumeClaimTemplate times the peak replicas, each CDI
 *   DataVolume and each VirtualMachine dataVolumeTemplate.
 * - VMs: a VirtualMachine that runs is one virt-launcher pod with the VM's `domain.resources` plus KubeVirt's
 *   overhead (`VM_POD_OVERHEAD`: 256Mi, 8Mi per vCPU and 1/512 of the guest memory, on requests and limits); a
 *   VirtualMachine without cpu and memory limits is a problem, as a container without them is. A DataVolume that
 *   imports an image counts CDI v1.56's importer pod (requests 100m / 60M, limits 750m / 600M).
 * - Computed amounts add `headroomPercent` and round up to clean steps (100m up to 2 cores, then 500m; 64Mi up to
 *   1Gi, then 256Mi). Explicit amounts (`hard`) are used as given, and the app must fit them.
 * - Requests are always bounded. `limits.cpu` and `limits.memory` are bounded only when every container (and VM)
 *   has that limit, or when the amount is given: the quota admission rejects a pod with a container without a limit
 *   the quota bounds, and a container has a limit only where compose sets one (`ComposeAppProps.defaultLimits`).
 *
 * Validation fails when the app does not fit an explicit amount (naming the key, the need with its biggest
 * contributors, and the amount allowed), when a limit is given but a container lacks it (the quota admission rejects
 * such pods), or when a second NamespaceQuota covers the same namespace.
 *
 * @example
 * new NamespaceQuota(chart, 'Quota', { namespace: 'shop' });                     // computed, 20% headroom
 * new NamespaceQuota(chart, 'Quota', {
 *   namespace: 'shop',
 *   hard: { limitsCpu: Cpu.units(8), limitsMemory: Size.gibibytes(16), persistentVolumeClaims: 10 },
 * });
 */
export class NamespaceQuota extends Construct {
  /** The ResourceQuota. */
  public readonly resourceQuota: KubeResourceQuota;
  /** The namespace covered (undefined: the default namespace of the kubectl context). */
  public readonly namespace?: string;
  private readonly explicit: Partial<Record<QuotaKey, number>>;
  private readonly headroomPercent: number;
  private readonly nodeCount: number;
  /** What the last validation computed, for the rendering that follows it. */
  private validatedNeeds?: NamespaceNeeds;

  constructor(scope: Construct, id: string, props: NamespaceQuotaProps = {}) {
    super(scope, id);
    const where = { file: '', path: this.node.path };
    this.namespace = props.namespace ?? Chart.of(this).namespace;
    this.headroomPercent = props.headroomPercent ?? DEFAULT_HEADROOM_PERCENT;
    if (!(Number.isFinite(this.headroomPercent) && this.headroomPercent >= 0)) {
      throw new ComposeError('invalid headroomPercent', {
        at: where,
        value: props.headroomPercent,
        allowed: 'a percentage, 0 or more',
      });
    }
    this.nodeCount = props.nodeCount ?? DEFAULT_NODE_COUNT;
    if (!(Number.isInteger(this.nodeCount) && this.nodeCount >= 1)) {
      throw new ComposeError('invalid nodeCount', {
        at: where,
        value: props.nodeCount,
        allowed: 'a whole number, 1 or more',
      });
    }
    this.explicit = explicitAmounts(props.hard ?? {}, where);

    this.resourceQuota = new KubeResourceQuota(this, 'Resource', {
      metadata: { name: props.name ?? DEFAULT_NAME, namespace: this.namespace },
      spec: { hard: Lazy.any({ produce: () => this.hardQuantities() }) },
    });
    this.node.addValidation({ validate: () => this.validateFit() });
  }

  /**
   * The quota's amounts: explicit ones as given, the others computed; a limit key only when it is given or every
   * container has that limit. Call once the app is complete.
   */
  public computeHard(): Partial<Record<QuotaKey, string>> {
    return this.hardFor(this.computeNeeds());
  }

  private hardFor(needs: NamespaceNeeds): Partial<Record<QuotaKey, string>> {
    const amount = (key: QuotaKey, computed: () => number) => this.explicit[key] ?? computed();
    const withHeadroom = (value: number) => Math.ceil((value * (100 + this.headroomPercent)) / 100);
    // A limit is bounded when it is given, or when every container has one: a quota with limits.cpu (or
    // limits.memory) rejects every pod with a container without that limit.
    const bounded = (key: QuotaKey, resource: 'cpu' | 'memory') =>
      this.explicit[key] !== undefined || needs.unlimited[resource].length === 0;
    return {
      [QuotaKey.REQUESTS_CPU]: formatCpu(
        amount(QuotaKey.REQUESTS_CPU, () => roundUpCpuMillicores(withHeadroom(needs.requestsCpuMillicores))),
      ),
      [QuotaKey.REQUESTS_MEMORY]: formatMemory(
        amount(QuotaKey.REQUESTS_MEMORY, () => roundUpMemoryBytes(withHeadroom(needs.requestsMemoryBytes))),
      ),
      [QuotaKey.LIMITS_CPU]: bounded(QuotaKey.LIMITS_CPU, 'cpu')
        ? formatCpu(amount(QuotaKey.LIMITS_CPU, () => roundUpCpuMillicores(withHeadroom(needs.limitsCpuMillicores))))
        : undefined,
      [QuotaKey.LIMITS_MEMORY]: bounded(QuotaKey.LIMITS_MEMORY, 'memory')
        ? formatMemory(amount(QuotaKey.LIMITS_MEMORY, () => roundUpMemoryBytes(withHeadroom(needs.limitsMemoryBytes))))
        : undefined,
      [QuotaKey.PERSISTENT_VOLUME_CLAIMS]: String(
        amount(QuotaKey.PERSISTENT_VOLUME_CLAIMS, () => needs.persistentVolumeClaims),
      ),
    };
  }

  /** What the namespace needs at its peak, read from the construct tree. Call once the app is complete. */
  public computeNeeds(): NamespaceNeeds {
    return namespaceNeeds(this.namespaceDocs(), this.nodeCount);
  }

  private hardQuantities(): Record<string, Quantity> {
    // Every cdk8s synthesis (app.synth(), chart.toJson(), Testing.synth()) validates the app right before it renders
    // it: the rendering takes the needs validation just computed (once) instead of reading every workload again.
    const needs = this.validatedNeeds ?? this.computeNeeds();
    this.validatedNeeds = undefined;
    return Object.fromEntries(
      Object.entries(this.hardFor(needs))
        .filter((entry): entry is [string, string] => entry[1] !== undefined)
        .map(([key, value]) => [key, Quantity.fromString(value)]),
    );
  }

  private validateFit(): string[] {
    const errors: string[] = [];
    const all = this.node.root.node.findAll();
    const others = all.filter(
      (c): c is NamespaceQuota => c instanceof NamespaceQuota && c !== this && c.namespace === this.namespace,
    );
    // Reported by the first of them only, so the message appears once.
    if (others.length > 0 && others.every((other) => compare(this.node.path, other.node.path) < 0)) {
      errors.push(
        new ComposeError(
          `${[this, ...others].length} NamespaceQuotas cover namespace "${this.namespace ?? 'default'}"`,
          {
            value: [this, ...others]
              .map((q) => q.node.path)
              .sort(compare)
              .join(', '),
            allowed: 'one NamespaceQuota per namespace',
            hint: 'remove all but one',
          },
        ).message,
      );
    }

    const needs = namespaceNeeds(this.namespaceDocs(all), this.nodeCount);
    // Kept for the rendering of this synthesis only: a validation not followed by a rendering (it failed, or the
    // caller only validated) leaves nothing behind once the synchronous synthesis is over.
    this.validatedNeeds = needs;
    queueMicrotask(() => {
      this.validatedNeeds = undefined;
    });
    for (const [key, resource] of [
      [QuotaKey.LIMITS_CPU, 'cpu'],
      [QuotaKey.LIMITS_MEMORY, 'memory'],
    ] as const) {
      if (this.explicit[key] === undefined) {
        continue;
      }
      for (const container of needs.unlimited[resource]) {
        errors.push(
          new ComposeError(
            `${container} has no ${resource} limit; the ResourceQuota bounds ${key}, so it rejects the pod`,
            {
              hint: `set a ${resource} limit on every container, init containers included, or leave ${key} out of the quota`,
            },
          ).message,
        );
      }
    }
    for (const [key, field, unit] of RESOURCE_KEYS) {
      const allowed = this.explicit[key];
      const needed = needs[field];
      if (allowed !== undefined && needed > allowed) {
        // Needs are shown rounded up to a whole MiB: CDI's importer counts in decimal megabytes.
        const format = unit === 'cpu' ? formatCpu : (bytes: number) => formatMemory(Math.ceil(bytes / MIB) * MIB);
        const biggest = [...needs.workloads]
          .filter((w) => w.perPod[field] > 0)
          .sort((a, b) => b.pods * b.perPod[field] - a.pods * a.perPod[field] || compare(a.workload, b.workload))
          .slice(0, 3)
          .map((w) => `${w.workload} ${w.pods} × ${format(w.perPod[field])}`);
        errors.push(
          new ComposeError(
            `the app does not fit the quota: ${key} needs ${format(needed)} at its peak (${biggest.join(', ')}), ` +
              `the quota allows ${format(allowed)}`,
            {
              hint: `raise ${key} in the quota, or lower replicas, maxReplicas or the ${unit} ${key.split('.')[0]}`,
            },
          ).message,
        );
      }
    }
    const allowedClaims = this.explicit[QuotaKey.PERSISTENT_VOLUME_CLAIMS];
    if (allowedClaims !== undefined && needs.persistentVolumeClaims > allowedClaims) {
      errors.push(
        new ComposeError(
          `the app does not fit the quota: persistentvolumeclaims needs ${needs.persistentVolumeClaims}, ` +
            `the quota allows ${allowedClaims}`,
          {
            hint: 'raise persistentVolumeClaims in the quota, or share volumes between services',
          },
        ).message,
      );
    }
    return errors;
  }

  /**
   * What the quota reads of the API objects of the whole app in its namespace: the workloads' own figures, other
   * objects rendered (`quotaDocument`).
   */
  private namespaceDocs(all: readonly IConstruct[] = this.node.root.node.findAll()): any[] {
    return (
      all
        .filter((c: IConstruct): c is ApiObject => ApiObject.isApiObject(c) && c.metadata.namespace === this.namespace)
        // Only the kinds counted are read (a quota is not: rendering one computes its amounts, which would read this one).
        .filter((o) => COUNTED_KINDS.has(o.kind))
        .map(quotaDocument)
        .filter((doc) => doc && typeof doc === 'object')
    );
  }
}

function explicitAmounts(hard: QuotaAmounts, where: { file: string; path: string }): Partial<Record<QuotaKey, number>> {
  const result: Partial<Record<QuotaKey, number>> = {};
  const cpu = (key: QuotaKey, value: Cpu | undefined) => {
    if (value !== undefined) {
      result[key] = parseCpuMillicores(value.amount, where);
    }
  };
  const memory = (key: QuotaKey, value: Size | undefined) => {
    if (value !== undefined) {
      const bytes = sizeToBytes(value);
      if (!(bytes >= 0)) {
        throw new ComposeError(`invalid quota ${key}`, {
          at: where,
          value: value.asString(),
          allowed: 'a memory size, 0 or more',
        });
      }
      result[key] = bytes;
    }
  };
  cpu(QuotaKey.REQUESTS_CPU, hard.requestsCpu);
  memory(QuotaKey.REQUESTS_MEMORY, hard.requestsMemory);
  cpu(QuotaKey.LIMITS_CPU, hard.limitsCpu);
  memory(QuotaKey.LIMITS_MEMORY, hard.limitsMemory);
  if (hard.persistentVolumeClaims !== undefined) {
    if (!(Number.isInteger(hard.persistentVolumeClaims) && hard.persistentVolumeClaims >= 0)) {
      throw new ComposeError('invalid quota persistentvolumeclaims', {
        at: where,
        value: hard.persistentVolumeClaims,
        allowed: 'a whole number of claims, 0 or more',
      });
    }
    result[QuotaKey.PERSISTENT_VOLUME_CLAIMS] = hard.persistentVolumeClaims;
  }
  return result;
}
