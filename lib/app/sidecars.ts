import { ServicePlan, WorkloadKind } from './migrated-service';

const HOST_KINDS: readonly WorkloadKind[] = [WorkloadKind.DEPLOYMENT, WorkloadKind.STATEFUL, WorkloadKind.STATEFUL_SET, WorkloadKind.DAEMON_SET];

/**
 * `network_mode: service:X`: a service that would run as a Deployment becomes a second container in X's pod (a
 * `WorkloadKind.SIDECAR`), its ports on X's Service (marked `via` it), when X runs as a long-running container
 * workload that is no sidecar itself; otherwise it keeps its own pod, and `network_mode` is reported as before.
 * Updates the plans in place.
 */
export function planSidecars(plans: Map<string, ServicePlan>): void {
  for (const plan of [...plans.values()]) {
    const host = plans.get(/^service:(.+)$/.exec(plan.service.networkMode ?? '')?.[1] ?? '');
    if (!host || host === plan || !HOST_KINDS.includes(host.kind) || host.service.networkMode?.startsWith('service:')
      || plan.kind !== WorkloadKind.DEPLOYMENT) {
      continue;
    }
    plans.set(plan.service.name, { ...plan, kind: WorkloadKind.SIDECAR, hasService: false, sidecarOf: host.service.name });
    const current = plans.get(host.service.name)!;
    const added = plan.ports.filter((p) => !current.ports.some((q) => q.port === p.port && q.protocol === p.protocol))
      .map((p) => ({ ...p, via: plan.service.name }));
    const ports = [...current.ports, ...added].sort((a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0));
    plans.set(host.service.name, { ...current, ports, hasService: current.hasService || ports.length > 0 });
  }
}
