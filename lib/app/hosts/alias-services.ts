import * as kplus from 'cdk8s-plus-27';
import { ComposeLocation } from '../../compose/model';
import { MigratedService, ServicePlan, WorkloadKind } from '../service/migrated-service';
import { NameRegistry, isServiceName } from '../../base/naming';
import { Reachability } from '../policy/reachability';

/** One extra name that gets its own Service. */
export interface PlannedAlias {
  /** The Service name: the name as written, lower case. */
  readonly name: string;
  /** The compose service it selects. */
  readonly server: string;
  /** The first reference that needs it, for the message. */
  readonly what: string;
  readonly at: ComposeLocation;
}

/**
 * Rule 2 where values cannot be rewritten: a command, an entrypoint, a healthcheck or a config or bound file that
 * reaches a service by another of its names (an alias, `container_name`, `hostname`) gets a Service of that name, so
 * the name resolves in Kubernetes as it did in compose and files stay byte for byte. The names are claimed here,
 * before any object exists; a name that cannot be a Service name (`my_db`) or is taken stays reported as
 * `file-host-reference`.
 */
export function planAliases(
  reachability: Reachability,
  plans: ReadonlyMap<string, ServicePlan>,
  names: NameRegistry,
): PlannedAlias[] {
  const planned = new Map<string, PlannedAlias>();
  for (const ref of reachability.references) {
    const plan = plans.get(ref.server);
    const name = ref.name.toLowerCase();
    if (
      ref.source === 'environment' ||
      !plan?.hasService ||
      plan.kind === WorkloadKind.VM ||
      name === plan.name ||
      planned.has(name) ||
      !isServiceName(name) ||
      names.has('Service', name)
    ) {
      continue;
    }
    names.claim('Service', name, { owner: `the name "${ref.name}" of service "${ref.server}"`, at: ref.at });
    planned.set(name, { name, server: ref.server, what: ref.what, at: ref.at });
  }
  return [...planned.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What the alias Services need from the app. */
export interface AliasServicesProps {
  readonly aliases: readonly PlannedAlias[];
  /** The container services, by compose name. */
  readonly services: ReadonlyMap<string, MigratedService>;
  readonly namespace: string;
  warn(code: string, message: string, at: ComposeLocation): void;
}

/**
 * The Services of the planned aliases: each selects its service's pods, with the same ports. Each is made inside its
 * service's construct (id `Alias-<name>`), so it travels with the service (its deploy wave, its handles).
 * Returns them by Service name.
 */
export function createAliasServices(props: AliasServicesProps): Record<string, kplus.Service> {
  const services: Record<string, kplus.Service> = {};
  for (const alias of props.aliases) {
    const target = props.services.get(alias.server);
    if (!target?.service) {
      continue;
    }
    const service = new kplus.Service(target, `Alias-${alias.name}`, {
      metadata: { name: alias.name, namespace: props.namespace, labels: { app: target.name } },
      type: kplus.ServiceType.CLUSTER_IP,
      ports: target.ports.map((p) => ({
        port: p.port,
        targetPort: p.port,
        name: p.name,
        protocol: p.protocol === kplus.Protocol.TCP ? undefined : p.protocol,
      })),
    });
    service.selectLabel('app', target.name);
    services[alias.name] = service;
    props.warn(
      'alias-service',
      `${alias.what} reaches service "${alias.server}" as "${alias.name}", so the Service ` +
        `"${alias.name}" selects its pods too`,
      alias.at,
    );
  }
  return services;
}
