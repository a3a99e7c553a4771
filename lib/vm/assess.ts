import * as path from 'path';
import { ComposeError } from '../compose/errors';
import { ComposeService, VolumeMount } from '../compose/model';

/** Where a service should run. */
export type MigrationTarget = 'container' | 'vm';

/** The outcome of {@link assessService}. */
export interface ServiceAssessment {
  /** `vm` when anything in the service cannot run as an ordinary container. */
  readonly target: MigrationTarget;
  /**
   * One line per finding, each beginning with its compose key path, e.g. `services.portainer.volumes: mounts …`.
   * List items are named by their content, not their index, so reordering a list does not change the reasons.
   */
  readonly reasons: readonly string[];
  /**
   * What was found but does not move the service, one line each with why (a sysctl on a database or cache, which
   * runs as a stateful dependency that sets no sysctls). Empty when there is none.
   */
  readonly weak: readonly string[];
}

/** Options of {@link assessService}. */
export interface AssessOptions {
  /**
   * The database or cache engine the service runs as (`redis`), when the app runs it as a stateful dependency: such a
   * pod keeps the engine's own settings and ignores compose's sysctls, so a sysctl is no reason to move it.
   * @default - none: the service is an ordinary workload
   */
  readonly engine?: string;
}

/**
 * Sysctls a pod may set without the kubelet's `--allowed-unsafe-sysctls` (Kubernetes 1.27's safe set). Any other
 * sysctl makes a pod unschedulable on a default node.
 */
export const SAFE_SYSCTLS: readonly string[] = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.ping_group_range',
  'net.ipv4.tcp_syncookies',
];

const DOCKER_SOCKETS = ['/var/run/docker.sock', '/run/docker.sock'];

/** True when a service mounts the Docker socket (as its source or its target). */
export function mountsDockerSocket(service: ComposeService): boolean {
  return service.volumes.some(
    (v) =>
      v.type === 'bind' &&
      v.source !== undefined &&
      (DOCKER_SOCKETS.includes(v.source.replace(/\/+$/, '')) || DOCKER_SOCKETS.includes(v.target)),
  );
}

/**
 * Flags what in a compose service cannot run as an ordinary container on Kubernetes, so that the service goes to a
 * golden-image VM instead: a Docker socket mount (it drives a Docker engine, which a pod does not have), privileged
 * mode, host networking, host devices, unsafe sysctls, and a `/lib/modules` mount (it loads kernel modules into the
 * host). Privileged mode and host networking exist in Kubernetes, but Pod Security admission's baseline level
 * refuses both, so the VM is the portable choice.
 */
export function assessService(service: ComposeService, options: AssessOptions = {}): ServiceAssessment {
  const at = service.at.path || `services.${service.name}`;
  const reasons: string[] = [];
  const weak: string[] = [];
  for (const volume of service.volumes) {
    if (volume.type !== 'bind' || !volume.source) {
      continue;
    }
    const source = volume.source.replace(/\/+$/, '');
    if (DOCKER_SOCKETS.includes(source) || DOCKER_SOCKETS.includes(volume.target)) {
      reasons.push(
        `${at}.volumes: mounts the Docker socket ${source}: the service drives a Docker engine, which a pod does not have`,
      );
    } else if (source === '/lib/modules' || source.startsWith('/lib/modules/')) {
      reasons.push(
        `${at}.volumes: mounts ${source}: the service loads kernel modules, which a pod must not do to its node`,
      );
    }
  }
  if (service.privileged) {
    reasons.push(`${at}.privileged: runs privileged, which Pod Security admission (baseline) refuses`);
  }
  if (service.networkMode === 'host') {
    reasons.push(`${at}.network_mode: uses the host network ("host"), which Pod Security admission (baseline) refuses`);
  }
  for (const device of [...service.devices].sort()) {
    reasons.push(`${at}.devices: maps the host device "${device}", which a pod cannot do`);
  }
  for (const name of Object.keys(service.sysctls).sort()) {
    if (SAFE_SYSCTLS.includes(name)) {
      continue;
    }
    if (options.engine !== undefined) {
      weak.push(
        `${at}.sysctls.${name}: not a reason to move it: the service runs as a ${options.engine} stateful ` +
          "dependency, whose pod keeps the engine's own settings and sets no sysctls",
      );
    } else {
      reasons.push(`${at}.sysctls.${name}: sets an unsafe sysctl, which the kubelet refuses unless the node allows it`);
    }
  }
  return { target: reasons.length > 0 ? 'vm' : 'container', reasons, weak };
}

/** A named volume or bind directory that services write to, as a key: `volume:<name>`, `bind:<path>`. */
function sharedStore(mount: VolumeMount): string | undefined {
  if (mount.type === 'volume' && mount.source) {
    return `volume:${mount.source}`;
  }
  if (mount.type !== 'bind' || !mount.source) {
    return undefined;
  }
  const source = path.posix.normalize(mount.source).replace(/\/+$/, '');
  // The Docker socket and kernel modules are the host's, not data: each side has its own.
  if (DOCKER_SOCKETS.includes(source) || source === '/lib/modules' || source.startsWith('/lib/modules/')) {
    return undefined;
  }
  return `bind:${source}`;
}

function describeStore(mount: VolumeMount): string {
  return mount.type === 'volume' ? `the named volume "${mount.source}"` : `the bind "${mount.source}"`;
}

/** Options of {@link groupByStorage}. */
export interface StorageGroupOptions {
  /** The services that run in the VM on their own findings or choice, by name, with why. */
  readonly inVm: ReadonlyMap<string, readonly string[]>;
  /**
   * Services that must stay containers (their target was chosen), with where it was chosen; a group holding one of
   * them and a VM service cannot move as one, and fails.
   * @default - none
   */
  readonly pinned?: ReadonlyMap<string, string>;
}

/**
 * The services that must join the VM because they share a store with a service in it: a VM service and a container
 * never split one named volume or bind (two unrelated copies, one in the VM, one in the cluster). Stores every user
 * mounts read-only are copied alike to both halves and do not bind them. Returns, per service that joins, one reason
 * naming the store and the VM service it follows; throws when a service whose target was chosen as a container shares
 * a store with the VM, with the choice to make.
 */
export function groupByStorage(services: readonly ComposeService[], options: StorageGroupOptions): Map<string, string> {
  const users = new Map<string, { service: ComposeService; mount: VolumeMount }[]>();
  for (const service of services) {
    for (const mount of service.volumes) {
      const key = sharedStore(mount);
      if (key !== undefined) {
        users.set(key, [...(users.get(key) ?? []), { service, mount }]);
      }
    }
  }
  const writable = [...users.entries()]
    .filter(([, list]) => new Set(list.map((u) => u.service.name)).size > 1 && list.some((u) => !u.mount.readOnly))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const moved = new Map<string, string>();
  const inVm = (name: string) => options.inVm.has(name) || moved.has(name);
  let changed = true;
  while (changed) {
    changed = false;
    for (const [, list] of writable) {
      const leader = list.find((u) => inVm(u.service.name));
      if (!leader) {
        continue;
      }
      for (const user of list.filter((u) => !inVm(u.service.name))) {
        const pinned = options.pinned?.get(user.service.name);
        const at = user.service.at.path || `services.${user.service.name}`;
        if (pinned !== undefined) {
          throw new ComposeError(
            `${at} shares ${describeStore(user.mount)} with "${leader.service.name}", which runs in the VM, and ${pinned}: ` +
              'a VM and a pod cannot share one store',
            {
              at: user.mount.at,
              allowed: 'every service that writes a named volume or bind directory on the same side of the split',
              hint:
                `run "${user.service.name}" in the VM too (remove its container target), or keep ` +
                `"${leader.service.name}" a container (target: container), or give each its own volume`,
            },
          );
        }
        moved.set(
          user.service.name,
          `${at}.volumes: shares ${describeStore(user.mount)} with "${leader.service.name}", which runs in the VM: a VM and ` +
            'a pod cannot share one store, so they move together',
        );
        changed = true;
      }
    }
  }
  return moved;
}
