import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeError } from '../compose/errors';
import { VM_LABEL, objectMeta } from './vm-names';

/** A port of a Service in front of a VM. */
export interface VmServicePort {
  /** The Service port. */
  readonly port: number;
  /**
   * The port in the guest.
   * @default - the same as port
   */
  readonly targetPort?: number;
  /**
   * Port name; required by Kubernetes when a Service has several ports.
   * @default - none
   */
  readonly name?: string;
  /**
   * Protocol.
   * @default kplus.Protocol.TCP
   */
  readonly protocol?: kplus.Protocol;
}

/** Options for {@link GoldenImageVm.exposeViaService}. */
export interface VmServiceOptions {
  /**
   * The Service name; also its construct id, so each Service of a VM needs its own.
   * @default - generated from the construct path (construct id "Service")
   */
  readonly name?: string;
  /** Ports. */
  readonly ports: VmServicePort[];
  /**
   * Service type.
   * @default kplus.ServiceType.CLUSTER_IP
   */
  readonly serviceType?: kplus.ServiceType;
}

/** Options for {@link GoldenImageVm.exposeViaIngress}. */
export interface VmIngressOptions {
  /**
   * The Ingress name.
   * @default - generated from the construct path
   */
  readonly name?: string;
  /**
   * Host name of the rule.
   * @default - any host
   */
  readonly host?: string;
  /**
   * The Service to route to.
   * @default - the VM's first Service (exposeViaService must have been called)
   */
  readonly service?: kplus.Service;
  /**
   * The Service port to route to.
   * @default - the Service's first port
   */
  readonly port?: number;
  /**
   * The IngressClass.
   * @default - the cluster's default class
   */
  readonly className?: string;
  /**
   * Annotations of the Ingress.
   * @default { 'nginx.ingress.kubernetes.io/rewrite-target': '/' }
   */
  readonly annotations?: Record<string, string>;
}

/** Props of {@link VmExposure}. */
export interface VmExposureProps {
  /** The VM's name: its Services select `kubevirt.io/vm: <name>`. */
  readonly vmName: string;
  /**
   * `metadata.namespace` of the Services and Ingresses.
   * @default - the chart's namespace
   */
  readonly namespace?: string;
}

/**
 * The Services and Ingresses in front of a VM, the way a container is exposed. They are created in the VM's own
 * scope (ids `Service` or the Service name, `Ingress`, `Ingress2`, …), so their generated names follow the VM's path.
 */
export class VmExposure {
  private firstService?: kplus.Service;
  private firstIngress?: kplus.Ingress;
  private ingressCount = 0;

  constructor(
    private readonly scope: Construct,
    private readonly props: VmExposureProps,
  ) {}

  /** The first Service created. */
  public get service(): kplus.Service | undefined {
    return this.firstService;
  }

  /** The first Ingress created. */
  public get ingress(): kplus.Ingress | undefined {
    return this.firstIngress;
  }

  /** A Service that selects `kubevirt.io/vm: <name>`. */
  public exposeViaService(options: VmServiceOptions): kplus.Service {
    if (options.ports.length === 0) {
      throw new ComposeError(`VirtualMachine "${this.props.vmName}": a Service needs at least one port`, {
        hint: 'pass ports: [{ port: 80 }]',
      });
    }
    const service = new kplus.Service(this.scope, options.name ?? 'Service', {
      metadata: objectMeta(options.name, this.props.namespace),
      type: options.serviceType ?? kplus.ServiceType.CLUSTER_IP,
      ports: options.ports.map((p) => ({
        port: p.port,
        targetPort: p.targetPort ?? p.port,
        name: p.name,
        protocol: p.protocol,
      })),
    });
    service.selectLabel(VM_LABEL, this.props.vmName);
    this.firstService = this.firstService ?? service;
    return service;
  }

  /** An Ingress that routes an HTTP path prefix to a Service of the VM. */
  public exposeViaIngress(path: string, options: VmIngressOptions = {}): kplus.Ingress {
    const vm = `VirtualMachine "${this.props.vmName}"`;
    const service = options.service ?? this.firstService;
    if (!service) {
      throw new ComposeError(`${vm}: an Ingress needs a Service`, {
        hint: 'call exposeViaService() first, or pass service',
      });
    }
    if (!path.startsWith('/')) {
      throw new ComposeError(`${vm}: the Ingress path must begin with "/"`, { value: path });
    }
    this.ingressCount += 1;
    const ingress = new kplus.Ingress(this.scope, this.ingressCount === 1 ? 'Ingress' : `Ingress${this.ingressCount}`, {
      metadata: objectMeta(options.name, this.props.namespace),
      className: options.className,
    });
    const annotations = options.annotations ?? { 'nginx.ingress.kubernetes.io/rewrite-target': '/' };
    for (const [key, value] of Object.entries(annotations).sort(([a], [b]) => a.localeCompare(b))) {
      ingress.metadata.addAnnotation(key, value);
    }
    const backend = kplus.IngressBackend.fromService(service, { port: options.port ?? service.ports[0].port });
    if (options.host) {
      ingress.addHostRule(options.host, path, backend, kplus.HttpIngressPathType.PREFIX);
    } else {
      ingress.addRule(path, backend, kplus.HttpIngressPathType.PREFIX);
    }
    this.firstIngress = this.firstIngress ?? ingress;
    return ingress;
  }
}
