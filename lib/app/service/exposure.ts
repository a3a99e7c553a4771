import { ApiObject, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeLocation, PortMapping } from '../../compose/model';
import { NameRegistry, joinDnsLabel } from '../../base/naming';
import { IngressRule, PortAccess, ServiceSettings, explicitProtocol, toProtocol } from './service-plan';

export { PortAccess } from './service-plan';
import { Exposure, KomposeLabel, KomposeServiceType } from '../settings';

/**
 * `kompose.service.external-traffic-policy` on the LoadBalancer or NodePort Service of the published ports (kplus has
 * no prop for it); reported when the service has none (its published ports go through the Ingress, or stay internal).
 */
export function setExternalTrafficPolicy(
  service: kplus.Service | undefined,
  policy: 'Cluster' | 'Local' | undefined,
  at: ComposeLocation,
  warn: (code: string, message: string, at: ComposeLocation) => void,
): void {
  if (policy === undefined) {
    return;
  }
  if (!service) {
    warn(
      'unsupported-label',
      `ignored ${KomposeLabel.EXTERNAL_TRAFFIC_POLICY} "${policy.toLowerCase()}": the service has no ` +
        'LoadBalancer or NodePort Service (its published ports go through the Ingress, or stay internal)',
      at,
    );
    return;
  }
  ApiObject.of(service).addJsonPatch(JsonPatch.add('/spec/externalTrafficPolicy', policy));
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
    context.warn(
      'local-only-port',
      `port ${mapping.published ?? mapping.target} is bound to ${mapping.hostIp} in compose, ` +
        `so it stays inside the cluster (reach it with kubectl port-forward svc/${context.name} ${mapping.target})`,
      mapping.at,
    );
    return PortAccess.INTERNAL;
  }
  if (context.runsToCompletion) {
    return PortAccess.INTERNAL;
  }
  if (mapping.hostIp !== undefined) {
    context.warn(
      'host-ip',
      `the binding to host address ${mapping.hostIp} is not kept; the port is exposed on the ` +
        "cluster's external address instead",
      mapping.at,
    );
  }
  const expose = context.expose ?? komposeExposure(context.komposeServiceType);
  if (expose === Exposure.INTERNAL) {
    return PortAccess.INTERNAL;
  }
  if (context.komposeServiceType === 'nodeport') {
    return PortAccess.NODE_PORT;
  }
  if (expose === undefined && context.stateful) {
    context.warn(
      'database-port-internal',
      `published port ${mapping.published ?? mapping.target} of a database stays inside ` +
        `the cluster; reach it with kubectl port-forward svc/${context.name} ${mapping.target}, or set expose`,
      mapping.at,
    );
    return PortAccess.INTERNAL;
  }
  const isHttp =
    mapping.protocol === 'tcp' &&
    ((context.httpPort !== undefined && context.httpPort === mapping.target) ||
      mapping.appProtocol === 'http' ||
      (context.httpPort === undefined && context.httpPorts.includes(mapping.target)));
  if (
    expose !== Exposure.LOAD_BALANCER &&
    ingressFree &&
    context.hasService &&
    (isHttp || (expose === Exposure.INGRESS && mapping.protocol === 'tcp'))
  ) {
    return PortAccess.INGRESS;
  }
  return PortAccess.LOAD_BALANCER;
}

function komposeExposure(type: KomposeServiceType | undefined): Exposure | undefined {
  switch (type) {
    case 'loadbalancer':
      return Exposure.LOAD_BALANCER;
    case 'clusterip':
    case 'headless':
      return Exposure.INTERNAL;
    default:
      return undefined;
  }
}

/** What the external objects of one service (container or VM) are made from. */
export interface ExternalObjectsProps {
  /** The Kubernetes name of the service: the Ingress's, and `<name>-external`'s. */
  readonly name: string;
  readonly composeName: string;
  readonly at: ComposeLocation;
  readonly namespace: string;
  /** The labels of the objects. @default - none */
  readonly labels?: Record<string, string>;
  readonly names: NameRegistry;
  readonly settings: ServiceSettings;
}

/** The Ingress of a service's HTTP port, routing each rule's host and path to `service`; TLS when a secret is named. */
export function addIngress(
  scope: Construct,
  props: ExternalObjectsProps,
  service: kplus.Service,
  port: PortMapping,
): { ingress: kplus.Ingress; rules: IngressRule[] } {
  const { settings } = props;
  props.names.claim('Ingress', props.name, { owner: `service "${props.composeName}"`, at: props.at });
  const ingress = new kplus.Ingress(scope, 'Ingress', {
    metadata: {
      name: props.name,
      namespace: props.namespace,
      labels: props.labels,
      annotations: { ...settings.ingressAnnotations },
    },
    className: settings.ingressClassName,
  });
  const backend = kplus.IngressBackend.fromService(service, { port: port.target });
  const rules: IngressRule[] = [];
  for (const rule of settings.ingressRules) {
    ingress.addHostRule(rule.host, rule.path, backend, kplus.HttpIngressPathType.PREFIX);
    rules.push({ ...rule, at: port.at });
  }
  if (settings.ingressTlsSecret) {
    const hosts = [...new Set(settings.ingressRules.map((r) => r.host))];
    // A reference by name: the certificate's Secret is the cluster's, outside the app.
    ingress.addTls([{ hosts, secret: kplus.Secret.fromSecretName(scope, 'TlsSecret', settings.ingressTlsSecret) }]);
  }
  return { ingress, rules };
}

/**
 * The `<name>-external` LoadBalancer (or, under `kompose.service.type: nodeport`, NodePort) Service of the published
 * non-HTTP ports, each on its published port; the caller makes it select the pods.
 */
export function addExternalService(
  scope: Construct,
  props: ExternalObjectsProps,
  ports: ReadonlyArray<{ readonly mapping: PortMapping; readonly targetPort: number }>,
): kplus.Service {
  const { settings } = props;
  const nodePort = settings.komposeServiceType === 'nodeport';
  const name = props.names.claim('Service', joinDnsLabel(props.name, 'external'), {
    owner: `the published ports of service "${props.composeName}"`,
    at: props.at,
  });
  return new kplus.Service(scope, 'ExternalService', {
    metadata: { name, namespace: props.namespace, labels: props.labels },
    type: nodePort ? kplus.ServiceType.NODE_PORT : kplus.ServiceType.LOAD_BALANCER,
    ports: ports.map(({ mapping, targetPort }) => {
      const port = mapping.published ?? mapping.target;
      return {
        port,
        targetPort,
        protocol: explicitProtocol(toProtocol(mapping.protocol)),
        name: `${mapping.protocol}-${port}`,
        nodePort: !nodePort ? undefined : (settings.nodePort ?? (port >= 30000 && port <= 32767 ? port : undefined)),
      };
    }),
  });
}
