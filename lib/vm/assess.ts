import { ComposeService } from '../compose/model';

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

/**
 * Flags what in a compose service cannot run as an ordinary container on Kubernetes, so that the service goes to a
 * golden-image VM instead: a Docker socket mount (it drives a Docker engine, which a pod does not have), privileged
 * mode, host networking, host devices, unsafe sysctls, and a `/lib/modules` mount (it loads kernel modules into the
 * host). Privileged mode and host networking exist in Kubernetes, but Pod Security admission's baseline level
 * refuses both, so the VM is the portable choice.
 */
export function assessService(service: ComposeService): ServiceAssessment {
  const at = service.at.path || `services.${service.name}`;
  const reasons: string[] = [];
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
    if (!SAFE_SYSCTLS.includes(name)) {
      reasons.push(`${at}.sysctls.${name}: sets an unsafe sysctl, which the kubelet refuses unless the node allows it`);
    }
  }
  return { target: reasons.length > 0 ? 'vm' : 'container', reasons };
}
