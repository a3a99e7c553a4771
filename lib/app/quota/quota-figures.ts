import { ApiObject } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { exactMemoryOf } from './exact-sizes';

/** The part of a manifest the quota reads (`namespaceNeeds`). */
export interface QuotaDocument {
  readonly kind: string;
  readonly metadata?: { readonly name?: string };
  readonly spec?: object;
}

/** A pod's containers, by name, with their requests and limits as written in a manifest. */
interface PodFigures {
  readonly containers: ContainerFigures[];
  readonly initContainers: ContainerFigures[];
}

interface ContainerFigures {
  readonly name: string;
  readonly resources: { readonly requests: Quantities; readonly limits: Quantities };
}

interface Quantities {
  readonly cpu?: string;
  readonly memory?: string;
}

/**
 * What the quota reads of one API object, as the part of its manifest that `namespaceNeeds` reads: for a claim its
 * kind and name, for a cdk8s-plus workload its replicas, strategy and containers' names and resources, taken from the
 * workload's own figures (the values its rendering writes), so that the quota's validation does not render every
 * workload right before cdk8s renders it again. Any other object is rendered (`toJson()`) and read in full.
 *
 * A workload with JSON patches on its manifest (`ApiObject.of(deployment).addJsonPatch(…)`, which may change its
 * replicas or resources) is rendered and read as written instead, so that the patched figures are the ones counted.
 */
export function quotaDocument(object: ApiObject): QuotaDocument {
  if (object.kind === 'PersistentVolumeClaim') {
    // A claim counts one, whatever it holds.
    return { kind: object.kind, metadata: { name: object.name } };
  }
  const owner = object.node.scope;
  const figures =
    owner instanceof kplus.AbstractPod && !hasJsonPatches(object) ? workloadSpec(owner, object) : undefined;
  return figures === undefined
    ? object.toJson()
    : { kind: object.kind, metadata: { name: object.name }, spec: figures };
}

/** The spec fields the quota reads, as the workload renders them; undefined when `object` is not its resource. */
function workloadSpec(workload: kplus.AbstractPod, object: ApiObject): object | undefined {
  if (ApiObject.of(workload) !== object) {
    return undefined;
  }
  const template = { spec: podSpec(workload) };
  if (workload instanceof kplus.Deployment) {
    const strategy = workload.strategy._toKube();
    const maxSurge = strategy.rollingUpdate?.maxSurge as { value?: string | number } | undefined;
    return {
      replicas: workload.hasAutoscaler ? undefined : (workload.replicas ?? 2),
      strategy: { type: strategy.type, rollingUpdate: { maxSurge: maxSurge?.value } },
      template,
    };
  }
  if (workload instanceof kplus.StatefulSet) {
    return { replicas: workload.hasAutoscaler ? undefined : (workload.replicas ?? 1), template };
  }
  if (workload instanceof kplus.CronJob) {
    return { jobTemplate: { spec: { template } } };
  }
  if (workload instanceof kplus.Pod) {
    return template.spec;
  }
  if (workload instanceof kplus.Job || workload instanceof kplus.DaemonSet) {
    return { template };
  }
  return undefined;
}

function podSpec(pod: kplus.AbstractPod): PodFigures {
  return { containers: pod.containers.map(containerFigures), initContainers: pod.initContainers.map(containerFigures) };
}

/** A container's name and resources, as cdk8s-plus renders them (memory in Mi) with the exact sizes patched in. */
function containerFigures(container: kplus.Container): ContainerFigures {
  const resources = container.resources;
  const exact = exactMemoryOf(container);
  const memory = (size: { toMebibytes(): number } | undefined, bytes: number | undefined) =>
    bytes !== undefined ? String(bytes) : size ? `${size.toMebibytes()}Mi` : undefined;
  return {
    name: container.name,
    resources: {
      requests: {
        cpu: resources?.cpu?.request?.amount || undefined,
        memory: memory(resources?.memory?.request, exact?.requestBytes),
      },
      limits: {
        cpu: resources?.cpu?.limit?.amount || undefined,
        memory: memory(resources?.memory?.limit, exact?.limitBytes),
      },
    },
  };
}

/**
 * Whether JSON patches apply to the object's manifest. cdk8s keeps them in a field it does not publish; if that field
 * is ever not there to read, every object counts as patched and is rendered: slower, never wrong.
 */
function hasJsonPatches(object: ApiObject): boolean {
  const patches = (object as unknown as { readonly patches?: unknown }).patches;
  return !Array.isArray(patches) || patches.length > 0;
}
