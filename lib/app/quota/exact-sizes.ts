import { ApiObject, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Quantity } from '../../../imports/k8s';

const MIB = 1024 * 1024;

/** The exact memory sizes patched into each container, for the quota, which reads the containers' own figures. */
const EXACT_MEMORY = new WeakMap<kplus.Container, ExactMemory>();

/** The memory sizes, in bytes, that replace what cdk8s-plus writes for a container. */
export interface ExactMemory {
  readonly requestBytes?: number;
  readonly limitBytes?: number;
}

/** The sizes of one service's pod that compose gave in bytes. */
export interface ExactSizes {
  readonly workload: kplus.AbstractPod | kplus.Workload;
  /** Where the pod template sits in the workload's manifest (`/spec/template`, deeper in a CronJob). */
  readonly podTemplatePath: string;
  /** The resources given to the service's containers (the main one, its init and hook containers). */
  readonly resources: kplus.ContainerResources;
  readonly memoryRequestBytes: number;
  /** Undefined: the containers have no memory limit. */
  readonly memoryLimitBytes?: number;
  /** The tmpfs volumes of the main container and their sizes in bytes. */
  readonly tmpfs: readonly { readonly volume: kplus.Volume; readonly bytes: number }[];
}

/**
 * Keeps memory and tmpfs sizes that are not a whole number of MiB exact (`mem_limit: 10000` is 10000 bytes, which a
 * Kubernetes quantity takes as it is). cdk8s-plus writes every size in Mi, so such a size would be rounded up; the
 * exact bytes replace it in the finished manifest. Whole-MiB sizes are left as cdk8s-plus writes them.
 */
export function keepExactSizes(sizes: ExactSizes): void {
  const patches: JsonPatch[] = [];
  const spec = `${sizes.podTemplatePath}/spec`;
  const exact = (bytes: number): boolean => bytes % MIB !== 0;
  const containers = [
    ...sizes.workload.containers.map((c, i) => ({ c, path: `${spec}/containers/${i}` })),
    ...sizes.workload.initContainers.map((c, i) => ({ c, path: `${spec}/initContainers/${i}` })),
  ].filter(({ c }) => c.resources === sizes.resources);
  const memory: ExactMemory = {
    requestBytes: exact(sizes.memoryRequestBytes) ? sizes.memoryRequestBytes : undefined,
    limitBytes:
      sizes.memoryLimitBytes !== undefined && exact(sizes.memoryLimitBytes) ? sizes.memoryLimitBytes : undefined,
  };
  for (const { c, path } of containers) {
    if (memory.requestBytes !== undefined) {
      patches.push(JsonPatch.replace(`${path}/resources/requests/memory`, bytesOf(memory.requestBytes)));
    }
    if (memory.limitBytes !== undefined) {
      patches.push(JsonPatch.replace(`${path}/resources/limits/memory`, bytesOf(memory.limitBytes)));
    }
    if (memory.requestBytes !== undefined || memory.limitBytes !== undefined) {
      const before = EXACT_MEMORY.get(c);
      EXACT_MEMORY.set(c, {
        requestBytes: memory.requestBytes ?? before?.requestBytes,
        limitBytes: memory.limitBytes ?? before?.limitBytes,
      });
    }
  }
  const volumes = podVolumeOrder(sizes.workload);
  for (const { volume, bytes } of sizes.tmpfs.filter((t) => exact(t.bytes))) {
    const index = volumes.indexOf(volume.name);
    if (index >= 0) {
      patches.push(JsonPatch.replace(`${spec}/volumes/${index}/emptyDir/sizeLimit`, bytesOf(bytes)));
    }
  }
  if (patches.length > 0) {
    ApiObject.of(sizes.workload).addJsonPatch(...patches);
  }
}

/** The exact memory sizes `keepExactSizes` patched into a container's manifest, if any. */
export function exactMemoryOf(container: kplus.Container): ExactMemory | undefined {
  return EXACT_MEMORY.get(container);
}

/**
 * A quantity of plain bytes. The patch goes through the generated class's rendering, which reads a quantity by its
 * TypeScript shape (a `Quantity`), not the wire string.
 */
function bytesOf(bytes: number): Quantity {
  return Quantity.fromString(String(bytes));
}

/**
 * The pod's volume names in the order cdk8s-plus writes them: those of the containers' mounts, then the init
 * containers', then the pod's own, each once. The main container comes first, so its volumes keep their places when
 * containers are added later.
 */
function podVolumeOrder(workload: kplus.AbstractPod | kplus.Workload): string[] {
  const names: string[] = [];
  const add = (name: string) => {
    if (!names.includes(name)) {
      names.push(name);
    }
  };
  workload.containers.forEach((c) => c.mounts.forEach((m) => add(m.volume.name)));
  workload.initContainers.forEach((c) => c.mounts.forEach((m) => add(m.volume.name)));
  workload.volumes.forEach((v) => add(v.name));
  return names;
}
