import { Size } from 'cdk8s';
import { IScalable } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeHorizontalPodAutoscalerV2, MetricSpecV2, Quantity } from '../../../imports/k8s';
import { ComposeError } from '../../compose/errors';
import { ComposeLocation } from '../../compose/model';
import { formatMemory, parseMemoryBytes, sizeToBytes } from '../../base/quantities';
import { isDnsSubdomain } from '../../util/dns';

/** A workload to scale, by reference: what `spec.scaleTargetRef` holds. */
export interface ScaleTargetReference {
  /** e.g. `apps/v1`. */
  readonly apiVersion: string;
  /** e.g. `Deployment` or `StatefulSet`. */
  readonly kind: string;
  /** The workload's `metadata.name`. */
  readonly name: string;
}

/** Whether the memory metric targets a share of the pods' memory request or an absolute average. */
export enum MemoryTargetType {
  UTILIZATION = 'Utilization',
  AVERAGE_VALUE = 'AverageValue',
}

/** The memory metric of an autoscaler: a utilization percentage or an average value per pod. */
export class MemoryTarget {
  /** Scale so that pods use on average this percentage of their memory request (`kompose.hpa.memory: 70`). */
  public static utilization(percent: number): MemoryTarget {
    return new MemoryTarget(MemoryTargetType.UTILIZATION, percent);
  }

  /** Scale so that pods use on average this much memory (`kompose.hpa.memory: 512Mi`). */
  public static averageValue(size: Size): MemoryTarget {
    return new MemoryTarget(MemoryTargetType.AVERAGE_VALUE, sizeToBytes(size));
  }

  private constructor(
    public readonly type: MemoryTargetType,
    /** The percentage for `UTILIZATION`, bytes for `AVERAGE_VALUE`. */
    public readonly amount: number,
  ) {}
}

/** How far and on what an autoscaler scales; what `ServiceAutoscaler.parseKomposeLabels` returns. */
export interface AutoscalingSettings {
  /**
   * The fewest pods. Kubernetes needs at least 1 (0 only behind an alpha feature gate).
   * @default 1
   */
  readonly minReplicas?: number;
  /**
   * The most pods; at least `minReplicas`.
   * @default 3 (kompose's default), or `minReplicas` when that is higher
   */
  readonly maxReplicas?: number;
  /**
   * Target average cpu use, as a whole percentage of the pods' cpu request. Above 100 is allowed: it makes sense
   * when limits exceed requests.
   * @default 50 (kompose's default)
   */
  readonly cpuUtilization?: number;
  /**
   * A second metric on memory.
   * @default - no memory metric (kompose adds one at 70% whenever any `kompose.hpa.*` label is set; this does not)
   */
  readonly memory?: MemoryTarget;
}

/** Props of `ServiceAutoscaler`: the autoscaling settings plus the workload it scales. */
export interface ServiceAutoscalerProps extends AutoscalingSettings {
  /**
   * The workload to scale: a kplus `Deployment` or `StatefulSet`, or a reference to any scalable workload.
   * A kplus workload is marked as autoscaled, so it renders no `spec.replicas` and the autoscaler owns the count.
   */
  readonly target: IScalable | ScaleTargetReference;
  /**
   * `metadata.name` of the HorizontalPodAutoscaler.
   * @default - the target's name
   */
  readonly name?: string;
  /**
   * `metadata.namespace`.
   * @default - the chart's namespace
   */
  readonly namespace?: string;
  /**
   * `metadata.labels`.
   * @default - none
   */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * The compose service the settings came from, named in error messages.
   * @default - messages name the construct path
   */
  readonly at?: ComposeLocation;
}

/** The labels kompose reads, https://kompose.io/user-guide/#labels. */
export enum KomposeHpaLabel {
  MIN_REPLICAS = 'kompose.hpa.replicas.min',
  MAX_REPLICAS = 'kompose.hpa.replicas.max',
  CPU = 'kompose.hpa.cpu',
  MEMORY = 'kompose.hpa.memory',
}

const DEFAULT_MIN_REPLICAS = 1;
const DEFAULT_MAX_REPLICAS = 3;
const DEFAULT_CPU_UTILIZATION = 50;
const INT32_MAX = 2 ** 31 - 1;
const KOMPOSE_HPA_PREFIX = 'kompose.hpa.';

/**
 * A HorizontalPodAutoscaler (autoscaling/v2) for one workload: `scaleTargetRef`, `minReplicas`, `maxReplicas`, and
 * `Resource` metrics on cpu (`Utilization`, `averageUtilization`) and, optionally, memory.
 *
 * Built on the generated `KubeHorizontalPodAutoscalerV2`, not kplus `HorizontalPodAutoscaler`: kplus always writes
 * a `spec.behavior` with its own scale-up and scale-down policies (scale-down by `minReplicas` pods per 5 minutes,
 * which is not Kubernetes' default), only accepts kplus workloads as targets, and throws plain `Error`s. This one
 * leaves `behavior` to the cluster's defaults and accepts a plain reference too.
 *
 * @example
 * const settings = ServiceAutoscaler.parseKomposeLabels(service.labels, service.at);
 * if (settings) {
 *   new ServiceAutoscaler(this, 'Autoscaler', { target: deployment, ...settings, at: service.at });
 * }
 * // or by hand, for any workload:
 * new ServiceAutoscaler(chart, 'Web', {
 *   target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
 *   minReplicas: 2, maxReplicas: 10, cpuUtilization: 70, memory: MemoryTarget.utilization(80),
 * });
 */
export class ServiceAutoscaler extends Construct {
  /**
   * Reads kompose's autoscaling labels (`kompose.hpa.replicas.min`, `kompose.hpa.replicas.max`, `kompose.hpa.cpu`,
   * `kompose.hpa.memory`). Returns undefined when none is set.
   *
   * Unlike kompose, a bad value is an error rather than a silent fallback to the default, and `maxReplicas` below
   * `minReplicas` is an error rather than raised to it. Replica counts are whole numbers; `kompose.hpa.cpu` is a
   * whole percentage (`50` or `50%`); `kompose.hpa.memory` is a percentage too (`70`, as kompose reads it) or a
   * memory quantity with a unit (`512Mi`, as kompose's documentation writes it), which becomes an `AverageValue`
   * target.
   *
   * @param labels the service's `labels`
   * @param at the service's location; messages name `<at.path>.labels["kompose.hpa.cpu"]`
   */
  public static parseKomposeLabels(
    labels: Readonly<Record<string, string>>,
    at?: ComposeLocation,
  ): AutoscalingSettings | undefined {
    const keys = Object.keys(labels)
      .filter((key) => key.startsWith(KOMPOSE_HPA_PREFIX))
      .sort();
    if (keys.length === 0) {
      return undefined;
    }
    const known: readonly string[] = Object.values(KomposeHpaLabel);
    for (const key of keys) {
      if (!known.includes(key)) {
        throw new ComposeError(`unknown autoscaling label "${key}"`, {
          at: labelAt(at, key),
          allowed: [...known].sort().join(', '),
          hint: 'check the spelling of the label',
        });
      }
    }
    const text = (key: KomposeHpaLabel) => labels[key]?.trim();
    const minText = text(KomposeHpaLabel.MIN_REPLICAS);
    const maxText = text(KomposeHpaLabel.MAX_REPLICAS);
    const cpuText = text(KomposeHpaLabel.CPU);
    const memoryText = text(KomposeHpaLabel.MEMORY);
    const minReplicas =
      minText === undefined ? undefined : labelNumber(minText, /^\d+$/, at, KomposeHpaLabel.MIN_REPLICAS);
    const maxReplicas =
      maxText === undefined ? undefined : labelNumber(maxText, /^\d+$/, at, KomposeHpaLabel.MAX_REPLICAS);
    const cpuUtilization =
      cpuText === undefined ? undefined : labelNumber(cpuText, /^\d+\s*%?$/, at, KomposeHpaLabel.CPU);
    const settings: AutoscalingSettings = {
      minReplicas,
      maxReplicas,
      cpuUtilization,
      memory: memoryText === undefined ? undefined : memoryLabel(memoryText, at),
    };
    // Checked here too, so the messages name the labels rather than the props.
    checkSettings(settings, (key) => labelAt(at, LABEL_OF_SETTING[key]));
    return settings;
  }

  /** The HorizontalPodAutoscaler. */
  public readonly horizontalPodAutoscaler: KubeHorizontalPodAutoscalerV2;
  /** What it scales. */
  public readonly scaleTargetRef: ScaleTargetReference;
  public readonly minReplicas: number;
  public readonly maxReplicas: number;

  constructor(scope: Construct, id: string, props: ServiceAutoscalerProps) {
    super(scope, id);
    const where = props.at ?? { file: '', path: this.node.path };
    checkSettings(props, () => where);

    this.minReplicas = props.minReplicas ?? DEFAULT_MIN_REPLICAS;
    this.maxReplicas = props.maxReplicas ?? Math.max(DEFAULT_MAX_REPLICAS, this.minReplicas);
    const cpuUtilization = props.cpuUtilization ?? DEFAULT_CPU_UTILIZATION;
    this.scaleTargetRef = targetReference(props.target, where);
    const name = props.name ?? this.scaleTargetRef.name;
    if (!isDnsSubdomain(name) || name.length > 253) {
      throw new ComposeError('invalid autoscaler name', {
        at: where,
        value: name,
        allowed: 'a DNS-1123 subdomain: lower-case letters, digits, "-" and ".", at most 253 characters',
      });
    }

    const metrics: MetricSpecV2[] = [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: cpuUtilization } },
      },
    ];
    if (props.memory) {
      metrics.push({ type: 'Resource', resource: { name: 'memory', target: memoryMetricTarget(props.memory) } });
    }

    this.horizontalPodAutoscaler = new KubeHorizontalPodAutoscalerV2(this, 'Resource', {
      metadata: { name, namespace: props.namespace, labels: props.labels ? { ...props.labels } : undefined },
      spec: {
        scaleTargetRef: { ...this.scaleTargetRef },
        minReplicas: this.minReplicas,
        maxReplicas: this.maxReplicas,
        metrics,
      },
    });
  }
}

type SettingKey = 'minReplicas' | 'maxReplicas' | 'cpuUtilization' | 'memory';

const LABEL_OF_SETTING: Readonly<Record<SettingKey, KomposeHpaLabel>> = {
  minReplicas: KomposeHpaLabel.MIN_REPLICAS,
  maxReplicas: KomposeHpaLabel.MAX_REPLICAS,
  cpuUtilization: KomposeHpaLabel.CPU,
  memory: KomposeHpaLabel.MEMORY,
};

function checkSettings(settings: AutoscalingSettings, where: (key: SettingKey) => ComposeLocation): void {
  const { minReplicas, maxReplicas, cpuUtilization, memory } = settings;
  if (minReplicas !== undefined && !isWholeInRange(minReplicas, 1)) {
    throw new ComposeError('invalid minReplicas', {
      at: where('minReplicas'),
      value: minReplicas,
      allowed: 'a whole number of pods, 1 or more',
      hint: 'an autoscaler cannot scale to zero; leave it out to keep the service at a fixed replica count',
    });
  }
  if (maxReplicas !== undefined && !isWholeInRange(maxReplicas, 1)) {
    throw new ComposeError('invalid maxReplicas', {
      at: where('maxReplicas'),
      value: maxReplicas,
      allowed: 'a whole number of pods, 1 or more',
    });
  }
  if (maxReplicas !== undefined && maxReplicas < (minReplicas ?? DEFAULT_MIN_REPLICAS)) {
    const min = minReplicas ?? DEFAULT_MIN_REPLICAS;
    throw new ComposeError(`maxReplicas ${maxReplicas} is less than minReplicas ${min}`, {
      at: where('maxReplicas'),
      allowed: `maxReplicas of ${min} or more`,
      hint: 'raise maxReplicas or lower minReplicas',
    });
  }
  if (cpuUtilization !== undefined && !isWholeInRange(cpuUtilization, 1)) {
    throw new ComposeError('invalid cpu utilization', {
      at: where('cpuUtilization'),
      value: cpuUtilization,
      allowed: "a whole percentage of the pods' cpu request, 1 or more",
    });
  }
  if (memory?.type === MemoryTargetType.UTILIZATION && !isWholeInRange(memory.amount, 1)) {
    throw new ComposeError('invalid memory utilization', {
      at: where('memory'),
      value: memory.amount,
      allowed: 'a whole percentage of the pods\' memory request, 1 or more, or a memory quantity such as "512Mi"',
    });
  }
  if (memory?.type === MemoryTargetType.AVERAGE_VALUE && !(memory.amount > 0)) {
    throw new ComposeError('invalid memory average value', {
      at: where('memory'),
      value: formatMemory(memory.amount),
      allowed: 'a memory quantity above zero, such as "512Mi"',
    });
  }
}

function isWholeInRange(value: number, min: number): boolean {
  return Number.isInteger(value) && value >= min && value <= INT32_MAX;
}

function labelAt(at: ComposeLocation | undefined, key: string): ComposeLocation {
  const labels = `labels["${key}"]`;
  return at ? { ...at, path: at.path ? `${at.path}.${labels}` : labels } : { file: '', path: labels };
}

function labelNumber(text: string, pattern: RegExp, at: ComposeLocation | undefined, key: KomposeHpaLabel): number {
  if (!pattern.test(text)) {
    const percent = key === KomposeHpaLabel.CPU;
    throw new ComposeError(percent ? 'invalid cpu utilization' : 'invalid replica count', {
      at: labelAt(at, key),
      value: text,
      allowed: percent ? 'a whole percentage, 1 or more, such as "50" or "50%"' : 'a whole number of pods, 1 or more',
    });
  }
  return Number(text.replace('%', '').trim());
}

function memoryLabel(text: string, at: ComposeLocation | undefined): MemoryTarget {
  if (/^\d+\s*%?$/.test(text)) {
    return MemoryTarget.utilization(Number(text.replace('%', '').trim()));
  }
  if (!/^[\d.]+\s*[a-zA-Z]+$/.test(text)) {
    throw new ComposeError('invalid memory target', {
      at: labelAt(at, KomposeHpaLabel.MEMORY),
      value: text,
      allowed: 'a whole percentage such as "70" or "70%", or a memory quantity with a unit such as "512Mi"',
    });
  }
  const bytes = parseMemoryBytes(text.replace(/\s+/g, ''), labelAt(at, KomposeHpaLabel.MEMORY));
  return MemoryTarget.averageValue(Size.kibibytes(bytes / 1024));
}

function memoryMetricTarget(memory: MemoryTarget) {
  return memory.type === MemoryTargetType.UTILIZATION
    ? { type: memory.type, averageUtilization: memory.amount }
    : { type: memory.type, averageValue: Quantity.fromString(formatMemory(memory.amount)) };
}

function isScalable(target: IScalable | ScaleTargetReference): target is IScalable {
  return typeof (target as IScalable).toScalingTarget === 'function';
}

function targetReference(target: IScalable | ScaleTargetReference, where: ComposeLocation): ScaleTargetReference {
  if (isScalable(target)) {
    if (target.hasAutoscaler) {
      throw new ComposeError('the workload already has an autoscaler', {
        at: where,
        value: target.toScalingTarget().name,
        hint: 'create one autoscaler per workload',
      });
    }
    target.markHasAutoscaler();
    const { apiVersion, kind, name } = target.toScalingTarget();
    return { apiVersion, kind, name };
  }
  for (const key of ['apiVersion', 'kind', 'name'] as const) {
    if (typeof target[key] !== 'string' || target[key].trim() === '') {
      throw new ComposeError(`the scale target has no ${key}`, {
        at: where,
        value: target,
        allowed:
          'a target with apiVersion, kind and name, e.g. { apiVersion: "apps/v1", kind: "Deployment", name: "web" }',
      });
    }
  }
  return { apiVersion: target.apiVersion, kind: target.kind, name: target.name };
}
