import * as kplus from 'cdk8s-plus-27';
import { ServicePlan, WorkloadKind } from './migrated-service';
import { portName } from '../../base/naming';

const HOST_KINDS: readonly WorkloadKind[] = [
  WorkloadKind.DEPLOYMENT,
  WorkloadKind.STATEFUL,
  WorkloadKind.STATEFUL_SET,
  WorkloadKind.DAEMON_SET,
];

/**
 * `network_mode: service:X`: a service that would run as a Deployment becomes a second container in X's pod (a
 * `WorkloadKind.SIDECAR`), its ports on X's Service (marked `via` it), when X runs as a long-running container
 * workload that is no sidecar itself; otherwise it keeps its own pod, and `network_mode` is reported as before.
 * Updates the plans in place.
 */
export function planSidecars(plans: Map<string, ServicePlan>): void {
  for (const plan of [...plans.values()]) {
    const host = plans.get(/^service:(.+)$/.exec(plan.service.networkMode ?? '')?.[1] ?? '');
    if (
      !host ||
      host === plan ||
      !HOST_KINDS.includes(host.kind) ||
      host.service.networkMode?.startsWith('service:') ||
      plan.kind !== WorkloadKind.DEPLOYMENT
    ) {
      continue;
    }
    plans.set(plan.service.name, {
      ...plan,
      kind: WorkloadKind.SIDECAR,
      hasService: false,
      sidecarOf: host.service.name,
    });
    // In one network namespace a port is one process's: the host's declared ports stay the host container's; the
    // sidecar's others (and those the host only had inferred, from references that reach the pod) are the sidecar's.
    const current = plans.get(host.service.name)!;
    const declaredByHost = (p: { port: number; protocol: string }) =>
      current.ports.some((q) => q.port === p.port && q.protocol === p.protocol && !q.inferred && q.via === undefined);
    const added = plan.ports.filter((p) => !declaredByHost(p)).map((p) => ({ ...p, via: plan.service.name }));
    const kept = current.ports.filter((q) => !added.some((p) => p.port === q.port && p.protocol === q.protocol));
    const engine = current.engine;
    if (
      engine &&
      !kept.some((q) => q.protocol === kplus.Protocol.TCP && !q.inferred) &&
      !kept.some((q) => q.port === engine.port)
    ) {
      // The references that gave the host its only ports may reach the sidecar: the database keeps its engine's port.
      kept.push({ port: engine.port, protocol: kplus.Protocol.TCP, name: portName('tcp', engine.port) });
    }
    const ports = [...kept, ...added].sort(
      (a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0),
    );
    plans.set(host.service.name, { ...current, ports, hasService: current.hasService || ports.length > 0 });
  }
}
