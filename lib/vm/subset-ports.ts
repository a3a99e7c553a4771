import { ComposeError } from '../compose/errors';
import { ComposeLocation, ComposeService, PortMapping } from '../compose/model';
import { compare } from '../util/sort';

/** A port of a service in the VM: the container port and the VM port it is published on. */
export interface VmPublishedPort {
  /** The compose service. */
  readonly service: string;
  /** Container port: what other services address (`db:5432`). */
  readonly target: number;
  /** The port on the VM's address, where a Service's `targetPort` points. */
  readonly hostPort: number;
  readonly protocol: 'tcp' | 'udp' | 'sctp';
  /** From `ports` (published by the compose file) or `expose` (published only so the cluster reaches it). */
  readonly origin: 'ports' | 'expose';
}

/** Records a finding of the subset about a compose location. */
export type SubsetWarn = (code: string, message: string, at: ComposeLocation) => void;

/**
 * The VM ports the services of the subset publish, sorted: their published `ports` (those bound to one local address
 * too, on every address of the VM: see {@link vmListenPort}) and their `expose` ports, each on its own VM port; host networking publishes the container ports as they
 * are. Two services that need one VM port and protocol are refused.
 */
export function planVmPorts(services: readonly ComposeService[], warn: SubsetWarn): VmPublishedPort[] {
  const ports: VmPublishedPort[] = [];
  const taken = new Map<string, string>();
  const claim = (service: ComposeService, port: Omit<VmPublishedPort, 'service'>, path: string) => {
    const key = `${port.hostPort}/${port.protocol}`;
    const other = taken.get(key);
    if (other) {
      throw new ComposeError(`${other} and ${path} both need port ${key} on the VM`, {
        at: { file: service.at.file, path },
        allowed: 'one service per VM port and protocol',
        hint: 'publish one of them on another host port in the compose file, e.g. "8081:80"',
      });
    }
    taken.set(key, path);
    ports.push({ service: service.name, ...port });
  };
  for (const service of services) {
    if (service.networkMode === 'host') {
      // Host networking: the container's ports are the VM's ports already.
      for (const p of service.ports) {
        claim(service, { target: p.target, hostPort: p.target, protocol: p.protocol, origin: 'ports' }, p.at.path);
      }
      for (const p of service.expose) {
        claim(service, { target: p.target, hostPort: p.target, protocol: p.protocol, origin: 'expose' }, p.at.path);
      }
      continue;
    }
    for (const p of service.ports) {
      if (isLocalOnly(p)) {
        warn(
          'local-only-port',
          `bound to ${p.hostIp} on the compose host; in the VM it listens on every address (port ${vmListenPort(p)}), ` +
            "where the pod network reaches it: the namespace's NetworkPolicies decide who may",
          p.at,
        );
      }
      claim(service, { target: p.target, hostPort: vmListenPort(p), protocol: p.protocol, origin: 'ports' }, p.at.path);
    }
    for (const p of service.expose) {
      if (ports.some((q) => q.service === service.name && q.target === p.target && q.protocol === p.protocol)) {
        continue;
      }
      claim(service, { target: p.target, hostPort: p.target, protocol: p.protocol, origin: 'expose' }, p.at.path);
    }
  }
  return ports.sort((a, b) => compare(a.service, b.service) || a.target - b.target || compare(a.protocol, b.protocol));
}

/**
 * The VM port a compose port listens on, on every address of the VM (0.0.0.0), so that the pod network reaches it:
 * the published host port when compose publishes one, else the container port. A port compose bound to one host
 * address (`127.0.0.1:7654:6379`) listens on all of them in the VM, at the same port. A Service's `targetPort` for a
 * VM service is this port.
 */
export function vmListenPort(port: Pick<PortMapping, 'target' | 'published'>): number {
  return port.published ?? port.target;
}

/** A port compose bound to one host address other than "all" (`127.0.0.1`, `::1`, a LAN address). */
function isLocalOnly(port: PortMapping): boolean {
  return port.hostIp !== undefined && !['0.0.0.0', '::'].includes(port.hostIp);
}

/** The `ports:` of a service in the VM's compose file: its VM ports, each on every address of the VM. */
export function renderVmPorts(service: ComposeService, ports: readonly VmPublishedPort[]): string[] {
  if (service.networkMode) {
    return [];
  }
  return ports.map((p) => `${p.hostPort}:${p.target}/${p.protocol}`);
}
