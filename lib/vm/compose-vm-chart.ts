import * as path from 'path';
import { Chart, ChartProps } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeNetworkPolicies, ComposeNetworkPoliciesProps, PortExposure } from '../base/network-policy';
import { ComposeError, ComposeWarning } from '../compose/errors';
import { LoadComposeOptions, loadCompose } from '../compose/load';
import { ComposeModel } from '../compose/model';
import { ComposeVm, ComposeVmProps } from './compose-vm';

/** An HTTP route to one of the VM's services. */
export interface ComposeVmIngress {
  /** The compose service to route to; it must have a port. */
  readonly service: string;
  /**
   * The container port.
   * @default - the service's first port
   */
  readonly port?: number;
  /**
   * Path prefix.
   * @default '/'
   */
  readonly path?: string;
  /**
   * Host name.
   * @default - any host
   */
  readonly host?: string;
  /**
   * IngressClass.
   * @default - the cluster's default class
   */
  readonly className?: string;
}

/** Props of {@link ComposeVmChart}. */
export interface ComposeVmChartProps extends ChartProps, Omit<ComposeVmProps, 'model'> {
  /**
   * The loaded compose project. Give this or `composeFile`.
   * @default - loaded from composeFile
   */
  readonly model?: ComposeModel;
  /**
   * A compose file to load. Give this or `model`.
   * @default - none
   */
  readonly composeFile?: string;
  /**
   * Options for the loader.
   * @default {}
   */
  readonly loadOptions?: Omit<LoadComposeOptions, 'files' | 'workingDir'>;
  /**
   * The namespace's NetworkPolicies (default deny, DNS, and the VM's rules from its compose networks), or false when
   * another chart renders the namespace's policies and takes `vm.policyWorkload()`.
   * @default {}
   */
  readonly networkPolicies?: Omit<ComposeNetworkPoliciesProps, 'namespace' | 'networks' | 'workloads'> | false;
  /**
   * An Ingress to one of the services.
   * @default - none
   */
  readonly ingress?: ComposeVmIngress;
}

/**
 * A chart that migrates compose services to a VM on their own: `ComposeVm` plus the namespace's NetworkPolicies and
 * an optional Ingress. The reference app uses it for its legacy service; call
 * `GoldenImageBundle.synthesizeAll(app)` after `app.synth()` to write the image bundle.
 *
 * @example
 * const app = new App();
 * new ComposeVmChart(app, 'legacy', {
 *   namespace: 'legacy',
 *   composeFile: 'examples/legacy/compose.yaml',
 *   imageBaseUrl: 'https://images.example.com/vm',
 *   ingress: { service: 'app', host: 'legacy.example.com' },
 * });
 * app.synth();
 * GoldenImageBundle.synthesizeAll(app);
 */
export class ComposeVmChart extends Chart {
  /** The compose project. */
  public readonly model: ComposeModel;
  /** The VM, its bundle and Services. */
  public readonly composeVm: ComposeVm;
  /** The namespace's NetworkPolicies. */
  public readonly networkPolicies?: ComposeNetworkPolicies;
  /** The Ingress. */
  public readonly ingress?: kplus.Ingress;

  private readonly loadWarnings: ComposeWarning[] = [];

  constructor(scope: Construct, id: string, props: ComposeVmChartProps) {
    super(scope, id, props);
    if ((props.model === undefined) === (props.composeFile === undefined)) {
      throw new ComposeError(`ComposeVmChart ${id}: give exactly one of model and composeFile`, {
        hint: 'pass the loaded model, or the compose file to load',
      });
    }
    if (props.model) {
      this.model = props.model;
    } else {
      const loaded = loadCompose({
        ...props.loadOptions,
        files: [path.basename(props.composeFile!)],
        workingDir: path.dirname(props.composeFile!),
      });
      this.model = loaded.model;
      this.loadWarnings.push(...loaded.warnings);
    }
    this.composeVm = new ComposeVm(this, 'Vm', { ...props, model: this.model });

    let exposed: { port: number; protocol: 'tcp' | 'udp' | 'sctp'; via: PortExposure }[] = [];
    if (props.ingress) {
      const route = props.ingress;
      const service = this.composeVm.services[route.service];
      const ports = this.composeVm.ports.filter((p) => p.service === route.service && p.protocol === 'tcp');
      const port = route.port === undefined ? ports[0] : ports.find((p) => p.target === route.port);
      if (!service || !port) {
        throw new ComposeError(
          `ComposeVmChart ${id}: the Ingress needs a TCP port of service "${route.service}" in the VM`,
          {
            value: route.port,
            allowed:
              ports.length > 0 ? ports.map((p) => String(p.target)).join(', ') : 'none: the service has no TCP port',
            hint: 'name a service of the VM and one of its container ports',
          },
        );
      }
      this.ingress = this.composeVm.vm.exposeViaIngress(route.path ?? '/', {
        name: service.name,
        service,
        port: port.target,
        host: route.host,
        className: route.className,
      });
      exposed = [{ port: port.hostPort, protocol: port.protocol, via: PortExposure.INGRESS }];
    }

    if (props.networkPolicies !== false) {
      const used = new Set(this.composeVm.bundle.subset.networks);
      this.networkPolicies = new ComposeNetworkPolicies(this, 'NetworkPolicies', {
        ...props.networkPolicies,
        networks: this.model.networks
          .filter((n) => used.has(n.name))
          .map((n) => ({ name: n.name, internal: n.internal, at: n.at })),
        workloads: [this.composeVm.policyWorkload(exposed), this.composeVm.importerPolicyWorkload()],
      });
    }
  }

  /** The loader's and the VM's findings. */
  public get warnings(): readonly ComposeWarning[] {
    return [...this.loadWarnings, ...this.composeVm.warnings];
  }
}
