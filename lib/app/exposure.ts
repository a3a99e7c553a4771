import { ApiObject, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeLocation, PortMapping } from '../compose/model';
import { Exposure, KomposeLabel, KomposeServiceType } from './settings';

/**
 * `kompose.service.external-traffic-policy` on the LoadBalancer or NodePort Service of the published ports (kplus has
 * no prop for it); reported when the service has none (its published ports go through the Ingress, or stay internal).
 */
export function setExternalTrafficPolicy(
  service: kplus.Service | undefined, policy: 'Cluster' | 'Local' | undefined, at: ComposeLocation,
  warn: (code: string, message: string, at: ComposeLocation) => void,
): void {
  if (policy === undefined) {
    return;
  }
  if (!service) {
    warn('unsupported-label', `ignored ${KomposeLabel.EXTERNAL_TRAFFIC_POLICY} "${policy.toLowerCase()}": the service has no `
      + 'LoadBalancer or NodePort Service (its published ports go through the Ingress, or stay internal)', at);
    return;
  }
  ApiObject.of(service).addJsonPatch(JsonPatch.add('/spec/externalTrafficPolicy', policy));
}

/** How one published port is reached from outside the cluster. */
export enum PortAccess {
  INGRESS = 'Ingress',
  LOAD_BALANCER = 'LoadBalancer',
  NODE_PORT = 'NodePort',
  /** Kept inside the cluster: a `127.0.0.1` binding, a stateful dependency, or `Exposure.INTERNAL`. */
  INTERNAL = 'Internal',
}

/** What the exposure rule needs to know about a service, container or VM. */
export interface ExposureContext {
  /** The Kubernetes name, for the `kubectl port-forward` hints. */
  readonly name: string;
  readonly expose?: Exposure;
  readonly komposeServiceType?: KomposeServiceType;
  /** The container port of a service declared HTTP. */
  readonly httpPort?: number;
  /** Container ports that count as HTTP when the service is not declared HTTP. */
  readonly httpPorts: readonly number[];
  /** A Job or CronJob: its ports are never exposed. */
  readonly runsToCompletion: boolean;
  /** A database or cache: its ports stay internal unless `expose` says otherwise. */
  readonly stateful: boolean;
  /** It has a ClusterIP Service an Ingress can route to. */
  readonly hasService: boolean;
  warn(code: string, message: string, at: ComposeLocation): void;
}

const LOCAL_HOSTS = ['127.0.0.1', '::1', 'localhost'];

/**
 * The exposure rule of the README for one published port, in order: local-only bindings stay internal; Jobs,
 * `expose: internal` (or `kompose.service.type: clusterip|headless`) and databases stay internal; `nodeport` makes a
 * NodePort; the service's HTTP port goes through the Ingress (one port per service: `ingressFree`); the rest
 * through a LoadBalancer.
 */
export function portAccess(mapping: PortMapping, ingressFree: boolean, context: ExposureContext): PortAccess {
  if (mapping.hostIp !== undefined && LOCAL_HOSTS.includes(mapping.hostIp)) {
    context.warn('local-only-port', `port ${mapping.published ?? mapping.target} is bound to ${mapping.hostIp} in compose, `
      + `so it stays inside the cluster (reach it with kubectl port-forward svc/${context.name} ${mapping.target})`, mapping.at);
    return PortAccess.INTERNAL;
  }
  if (context.runsToCompletion) {
    return PortAccess.INTERNAL;
  }
  if (mapping.hostIp !== undefined) {
    context.warn('host-ip', `the binding to host address ${mapping.hostIp} is not kept; the port is exposed on the `
      + 'cluster\'s external address instead', mapping.at);
  }
  const expose = context.expose ?? komposeExposure(context.komposeServiceType);
  if (expose === Exposure.INTERNAL) {
    return PortAccess.INTERNAL;
  }
  if (context.komposeServiceType === 'nodeport') {
    return PortAccess.NODE_PORT;
  }
  if (expose === undefined && context.stateful) {
    context.warn('database-port-internal', `published port ${mapping.published ?? mapping.target} of a database stays inside `
      + `the cluster; reach it with kubectl port-forward svc/${context.name} ${mapping.target}, or set expose`, mapping.at);
    return PortAccess.INTERNAL;
  }
  const isHttp = mapping.protocol === 'tcp' && (
    (context.httpPort !== undefined && context.httpPort === mapping.target)
    || mapping.appProtocol === 'http'
    || (context.httpPort === undefined && context.httpPorts.includes(mapping.target)));
  if (expose !== Exposure.LOAD_BALANCER && ingressFree && context.hasService
    && (isHttp || (expose === Exposure.INGRESS && mapping.protocol === 'tcp'))) {
    return PortAccess.INGRESS;
  }
  return PortAccess.LOAD_BALANCER;
}

function komposeExposure(type: KomposeServiceType | undefined): Exposure | undefined {
  switch (type) {
    case 'loadbalancer': return Exposure.LOAD_BALANCER;
    case 'clusterip':
    case 'headless': return Exposure.INTERNAL;
    default: return undefined;
  }
}
