import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeError } from '../../compose/errors';
import { ComposeService, PortMapping } from '../../compose/model';
import { PortAccess, addExternalService, addIngress, portAccess, setExternalTrafficPolicy } from './exposure';
import { checkIngressLabels, labelAt } from '../kompose/kompose-labels';
import { KomposeLabel } from '../settings';
import { IngressRule, PublishedPort, ServicePartProps, WorkloadKind } from './service-plan';

/**
 * ports → external access, the exposure rule of the README: the service's HTTP port through an Ingress to its
 * ClusterIP Service, the other published ports through the `<name>-external` LoadBalancer (or NodePort) Service.
 */
export class ServiceExposure {
  /** Every published compose port and how it is reached. */
  public readonly published: PublishedPort[] = [];
  /** The Ingress for the published HTTP port. */
  public readonly ingress?: kplus.Ingress;
  /** The ingress rules rendered, for the app's collision check. */
  public readonly rules: IngressRule[] = [];
  /** The LoadBalancer (or NodePort) Service for published non-HTTP ports. */
  public readonly externalService?: kplus.Service;

  /**
   * @param service the ClusterIP Service the Ingress routes to
   * @param pods the pods the external Service selects: the workload the service runs in
   */
  constructor(scope: Construct, part: ServicePartProps, service: kplus.Service | undefined, pods: kplus.IPodSelector) {
    const { plan, settings, context } = part;
    const compose = plan.service;
    const seen = new Set<string>();
    let ingressPort: PortMapping | undefined;
    const external: PortMapping[] = [];
    for (const mapping of compose.ports) {
      const access = accessOf(part, mapping, ingressPort === undefined);
      this.published.push({ mapping, access });
      const key = `${mapping.published ?? mapping.target}/${mapping.protocol}`;
      if (access === PortAccess.INGRESS) {
        ingressPort = mapping;
      } else if ((access === PortAccess.LOAD_BALANCER || access === PortAccess.NODE_PORT) && !seen.has(key)) {
        seen.add(key);
        external.push(mapping);
      }
    }
    const objects = {
      name: plan.name,
      composeName: compose.name,
      at: compose.at,
      namespace: context.namespace,
      labels: { ...part.labels },
      names: context.names,
      settings,
    };
    if (ingressPort && service) {
      const { ingress, rules } = addIngress(scope, objects, service, ingressPort);
      this.ingress = ingress;
      this.rules.push(...rules);
    }
    checkIngressLabels(compose, this.ingress !== undefined);
    if (!this.ingress && settings.ingressHostGivenBy !== undefined) {
      reportUnusedIngressHost(part, this.published);
    }
    if (external.length > 0) {
      this.externalService = addExternalService(
        scope,
        objects,
        external.map((mapping) => ({ mapping, targetPort: mapping.target })),
      );
      this.externalService.select(pods);
    }
    setExternalTrafficPolicy(
      this.externalService,
      settings.externalTrafficPolicy,
      labelAt(compose, KomposeLabel.EXTERNAL_TRAFFIC_POLICY),
      (code, message, at) => context.warn(code, message, at),
    );
  }
}

/** An Ingress host the user named for a service that gets no Ingress: why, and how to give it one. */
function reportUnusedIngressHost(
  { plan, settings, context }: ServicePartProps,
  published: readonly PublishedPort[],
): void {
  const name = plan.service.name;
  const why =
    published.length === 0
      ? 'it publishes no port (compose `ports:`)'
      : `none of its published ports is its HTTP port (${published
          .map((p) => `${p.mapping.target}/${p.mapping.protocol} → ${p.access}`)
          .join(
            ', ',
          )}; HTTP ports are ${settings.http ? `its http.port ${settings.http.port}` : settings.httpPorts.join(', ')})`;
  const port = published.find((p) => p.mapping.protocol === 'tcp')?.mapping.target ?? plan.ports[0]?.port;
  context.warn(
    'ingress-host-unused',
    `${settings.ingressHostGivenBy} names the host "${settings.ingressRules[0].host}", but service "${name}" gets no ` +
      `Ingress: ${why}. Declare its HTTP port with services["${name}"].http: { port: ${port ?? 'PORT'} } ` +
      `(x-cdk8s-compose.http.port)${published.length === 0 ? ' and publish it' : ''}, or expose: Exposure.INGRESS; ` +
      'or drop the host',
    plan.service.at,
  );
}

function accessOf(
  { plan, settings, context }: ServicePartProps,
  mapping: PortMapping,
  ingressFree: boolean,
): PortAccess {
  return portAccess(mapping, ingressFree, {
    name: plan.name,
    expose: settings.expose,
    komposeServiceType: settings.komposeServiceType,
    httpPort: settings.http?.port,
    httpPorts: settings.httpPorts,
    runsToCompletion: plan.kind === WorkloadKind.JOB || plan.kind === WorkloadKind.CRON_JOB,
    stateful: plan.kind === WorkloadKind.STATEFUL,
    hasService: plan.hasService,
    warn: (code, message, at) => context.warn(code, message, at),
  });
}

/** Two published ports with the same host port, protocol and address but different container ports. */
export function checkPublishedPorts(service: ComposeService): void {
  const seen = new Map<string, PortMapping>();
  for (const mapping of service.ports) {
    if (mapping.published === undefined) {
      continue;
    }
    const key = `${mapping.hostIp ?? ''}|${mapping.published}/${mapping.protocol}`;
    const earlier = seen.get(key);
    if (earlier && earlier.target !== mapping.target) {
      throw new ComposeError(
        `host port ${mapping.published}/${mapping.protocol} is published twice in service ` +
          `"${service.name}", to container ports ${earlier.target} (${earlier.at.path}) and ${mapping.target}`,
        {
          at: mapping.at,
          value: `${mapping.published}:${mapping.target}/${mapping.protocol}`,
          allowed: 'each host port and protocol published once per host address',
          hint: 'publish one of them on another host port',
        },
      );
    }
    seen.set(key, mapping);
  }
}
