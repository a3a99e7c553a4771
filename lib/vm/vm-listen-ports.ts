import { ComposeService, Protocol } from '../compose/model';
import { compare } from '../util/sort';
import { vmListenPort } from './subset-ports';

/** A port a service in the VM listens on, as the cluster reaches it. */
export interface VmListenPort {
  /** The compose service. */
  readonly service: string;
  /** The container port: what compose services address (`redis:6379`), and the port of its Service. */
  readonly port: number;
  /** The port on the VM's pod-network address where the process is reached: the Service's `targetPort`. */
  readonly listen: number;
  readonly protocol: Protocol;
  /** Where the port came from: `ports`, `expose`, or a port others reach or the image documents (inferred). */
  readonly origin: 'ports' | 'expose' | 'inferred';
}

/**
 * The ports a service in the VM listens on, as the pod network must reach them, one per container port and protocol
 * (the first `ports` entry wins), sorted: the rule shared by the cluster's Services (`targetPort` = `listen`) and the
 * VM's compose file, which publishes each on the VM's address (all interfaces, also where compose bound it to
 * `127.0.0.1`, since the pod network reaches the VM only there):
 *
 * - a published port listens where `vmListenPort` says: its host port (`"7654:6379"` → 7654; none → the container port);
 * - an `expose` port, and a port inferred for the service (others reach it, or its image documents it), listens on the
 *   container port;
 * - with `network_mode: host` the process holds the VM's ports itself: every port listens on the container port.
 *
 * @param inferred TCP ports the service listens on beyond `ports` and `expose` (the app's `Reachability`)
 */
export function vmListenPorts(service: ComposeService, inferred: readonly number[] = []): VmListenPort[] {
  const host = service.networkMode === 'host';
  const found = new Map<string, VmListenPort>();
  const add = (port: number, protocol: Protocol, listen: number, origin: VmListenPort['origin']) => {
    const key = `${port}/${protocol}`;
    if (!found.has(key)) {
      found.set(key, { service: service.name, port, listen: host ? port : listen, protocol, origin });
    }
  };
  for (const p of service.ports) {
    add(p.target, p.protocol, vmListenPort(p), 'ports');
  }
  for (const p of service.expose) {
    add(p.target, p.protocol, p.target, 'expose');
  }
  for (const port of inferred) {
    add(port, 'tcp', port, 'inferred');
  }
  return [...found.values()].sort((a, b) => a.port - b.port || compare(a.protocol, b.protocol));
}
