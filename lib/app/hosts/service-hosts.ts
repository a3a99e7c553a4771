import { ComposeLocation, ComposeService } from '../../compose/model';
import { PlannedAlias } from './alias-services';
import { AppWarnings } from '../app-warnings';
import { HostRewriter } from './host-rewrite';
import { ServicePlan } from '../service/migrated-service';

/** What `serviceHostRewriter` maps and where it reports. */
export interface ServiceHostsOptions {
  readonly plans: ReadonlyMap<string, ServicePlan>;
  /** The services whose names are rewritten. */
  readonly include: (plan: ServicePlan) => boolean;
  /** Extra names that have a Service of their own. @default - none */
  readonly aliases?: readonly PlannedAlias[];
  /** Services replaced by managed endpoints: their names map to their Services too. @default - none */
  readonly externals?: readonly { readonly service: ComposeService; readonly name: string }[];
  readonly warnings: AppWarnings;
  /** Where an ambiguous name is reported. */
  readonly at: ComposeLocation;
}

/**
 * Rule 2: compose names, aliases, hostnames and container names → Service names, for the services `include`
 * selects (the VM's compose project reaches its own services by their compose names). A name several services
 * answer to is not rewritten, and reported once.
 */
export function serviceHostRewriter({
  plans,
  include,
  aliases = [],
  externals = [],
  warnings,
  at,
}: ServiceHostsOptions): HostRewriter {
  const targets = new Map<string, Set<string>>();
  const add = (from: string | undefined, to: string) => {
    if (from) {
      const key = from.toLowerCase();
      targets.set(key, new Set([...(targets.get(key) ?? []), to]));
    }
  };
  for (const plan of [...[...plans.values()].filter(include), ...externals]) {
    add(plan.service.name, plan.name);
    add(plan.service.hostname, plan.name);
    add(plan.service.containerName, plan.name);
    for (const network of plan.service.networks) {
      for (const alias of network.aliases) {
        add(alias, plan.name);
      }
    }
  }
  const hosts = new Map<string, string>();
  for (const [from, to] of [...targets.entries()].sort()) {
    if (to.size === 1) {
      hosts.set(from, [...to][0]);
    } else {
      warnings.warnOnce(
        `ambiguous-host:${from}`,
        'ambiguous-host',
        `the name "${from}" belongs to several services ` + `(${[...to].sort().join(', ')}), so it is not rewritten`,
        at,
      );
    }
  }
  return new HostRewriter(hosts, new Set(aliases.map((a) => a.name)));
}
