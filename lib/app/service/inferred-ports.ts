import * as kplus from 'cdk8s-plus-27';
import { ComposeLocation, ComposeService } from '../../compose/model';
import { DatabaseEngine } from '../../stateful/engine';
import { ServicePlan, WorkloadKind, WorkloadPort } from './migrated-service';
import { portName } from '../../base/naming';
import { Reachability } from '../policy/reachability';

type Warn = (code: string, message: string, at: ComposeLocation) => void;

/**
 * A service's workload ports with the ports it listens on beyond `ports` and `expose` (`Reachability.inferredPorts`),
 * marked `inferred` and reported once per service (`inferred-port`); a Job or CronJob gets no Service, so nothing is
 * added. A database's own port, when it declares none, is the engine's, documented as such: it is not reported.
 */
export function withInferredPorts(
  reachability: Reachability,
  service: ComposeService,
  ports: readonly WorkloadPort[],
  kind: WorkloadKind,
  engine: DatabaseEngine | undefined,
  warn: Warn,
): WorkloadPort[] {
  const all = reachability
    .inferredPorts(service.name)
    .filter((p) => !ports.some((q) => q.port === p.port && q.protocol === kplus.Protocol.TCP));
  if (all.length === 0 || kind === WorkloadKind.JOB || kind === WorkloadKind.CRON_JOB) {
    return [...ports];
  }
  const reported = all.filter(
    (p) => !(engine && !ports.some((q) => q.protocol === kplus.Protocol.TCP) && p.port === engine.port),
  );
  if (reported.length > 0) {
    warn(
      'inferred-port',
      `service "${service.name}" gets the Service port${reported.length > 1 ? 's' : ''} ` +
        `${reported.map((p) => p.port).join(', ')}, which compose does not declare: ${reported.map((p) => `${p.port}: ${p.reason}`).join('; ')}`,
      service.at,
    );
  }
  return [
    ...ports,
    ...all.map((p) => ({ port: p.port, protocol: kplus.Protocol.TCP, name: portName('tcp', p.port), inferred: true })),
  ].sort((a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0));
}

/**
 * A service that others reach by name but that gets no Service (no port declared or inferred, or it runs as a Job
 * or CronJob): the name does not resolve, so each referencing key is reported once with the fix
 * (`unreachable-service`).
 */
export function reportUnreachable(
  reachability: Reachability,
  plans: ReadonlyMap<string, ServicePlan>,
  warnOnce: (key: string, code: string, message: string, at: ComposeLocation) => void,
): void {
  for (const ref of reachability.references) {
    const plan = plans.get(ref.server);
    if (!plan || plan.hasService || ref.client === ref.server || plan.kind === WorkloadKind.SIDECAR) {
      continue;
    }
    const why =
      plan.kind === WorkloadKind.JOB || plan.kind === WorkloadKind.CRON_JOB
        ? `runs as a ${plan.kind}, which gets no Service`
        : 'declares no port and none can be inferred';
    warnOnce(
      `unreachable:${ref.what}:${ref.server}`,
      'unreachable-service',
      `${ref.what} uses "${ref.name}" as a host, but ` +
        `service "${ref.server}" ${why}, so the name does not resolve in Kubernetes: add the port it listens on to ` +
        `services.${ref.server}.expose (expose: ["<port>"])`,
      ref.at,
    );
  }
}
