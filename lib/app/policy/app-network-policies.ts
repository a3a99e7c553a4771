import { Construct } from 'constructs';
import { ComposeModel, Protocol } from '../../compose/model';
import {
  CidrEgress,
  ComposeNetworkPolicies,
  ComposeNetworkPoliciesProps,
  PolicyWorkload,
  PortExposure,
} from '../../base/network-policy';
import { ComposeVm } from '../../vm/compose-vm';
import { COMPOSE_APP_DEFAULTS, ComposeAppProps } from '../compose-app-props';
import { WaitKind } from '../service/dependency-wait';
import { dedupe } from '../app-settings';
import { MigratedService, PortAccess, WorkloadKind } from '../service/migrated-service';
import { VmMigratedService } from '../vm/vm-migrated-service';
import { ExternalService } from '../external-service';

/** What the app's NetworkPolicies are made from. */
export interface AppNetworkPoliciesOptions {
  /** The policies' own options (the `networkPolicies` prop). */
  readonly options: Omit<ComposeNetworkPoliciesProps, 'namespace' | 'networks' | 'workloads'>;
  readonly props: Pick<ComposeAppProps, 'ingressControllerNamespace' | 'ingressControllerPodLabels'>;
  readonly model: ComposeModel;
  readonly namespace: string;
  /** The container services, by compose name. */
  readonly services: ReadonlyMap<string, MigratedService>;
  readonly vm?: ComposeVm;
  readonly vmServices: readonly VmMigratedService[];
  /** Services replaced by managed endpoints: their clients get egress to them. @default - none */
  readonly externalServices?: readonly ExternalService[];
}

/**
 * The app's `ComposeNetworkPolicies` (`NetworkPolicies` under `scope`) from the compose networks: each workload's pods
 * get their networks' labels, and a policy workload lists its ports, the ports exposed outside, and the API egress of
 * its waits; a stateful dependency's backup and the VM (and its image importer) join as workloads of their own.
 */
export function createNetworkPolicies(scope: Construct, o: AppNetworkPoliciesOptions): ComposeNetworkPolicies {
  const declared = new Set(o.model.networks.map((n) => n.name));
  const workloads: PolicyWorkload[] = [];
  const sidecars = [...o.services.values()].filter((s) => s.kind === WorkloadKind.SIDECAR);
  for (const service of o.services.values()) {
    if (service.kind === WorkloadKind.SIDECAR) {
      continue;
    }
    const networks = service.networks.filter((n) => declared.has(n));
    const labels = ComposeNetworkPolicies.networkLabels(networks);
    for (const [key, value] of Object.entries(labels)) {
      service.workload.podMetadata.addLabel(key, value);
    }
    const exposed = [service, ...sidecars.filter((s) => s.workload === service.workload)]
      .flatMap((s) => s.publishedPorts)
      .filter(
        (p) =>
          p.access === PortAccess.INGRESS || p.access === PortAccess.LOAD_BALANCER || p.access === PortAccess.NODE_PORT,
      )
      .map((p) => ({
        port: p.mapping.target,
        protocol: p.mapping.protocol,
        via: p.access === PortAccess.INGRESS ? PortExposure.INGRESS : PortExposure.LOAD_BALANCER,
      }));
    workloads.push({
      name: service.name,
      podLabels: { app: service.name },
      networks,
      ports: service.ports.map((p) => ({ port: p.port, protocol: p.protocol.toLowerCase() as Protocol })),
      exposedPorts: dedupe(exposed, (p) => `${p.port}/${p.protocol}/${p.via}`),
      extraEgress: [
        ...(service.waits.some((w) => w.kind !== WaitKind.TCP) ? [ComposeNetworkPolicies.kubernetesApiEgress()] : []),
        ...externalEgress(o.externalServices ?? [], [
          service.composeName,
          ...sidecars.filter((s) => s.workload === service.workload).map((s) => s.composeName),
        ]),
      ],
      at: service.at,
    });
    const backup = service.statefulDependency?.backup;
    if (backup) {
      for (const [key, value] of Object.entries(labels)) {
        backup.cronJob.podMetadata.addLabel(key, value);
      }
      workloads.push({ name: backup.cronJob.name, podLabels: backup.podLabels, networks, at: service.at });
    }
  }
  if (o.vm) {
    const vmWorkload = o.vm.policyWorkload(o.vmServices.flatMap((s) => s.exposedPorts));
    // A service on the host network reaches whatever its host does, in compose: the VM keeps that egress.
    const hostNetwork = o.vmServices.some(
      (s) => o.model.services.find((m) => m.name === s.composeName)?.networkMode === 'host',
    );
    workloads.push(
      hostNetwork
        ? { ...vmWorkload, extraEgress: [...(vmWorkload.extraEgress ?? []), { cidr: '0.0.0.0/0' }, { cidr: '::/0' }] }
        : vmWorkload,
    );
    workloads.push(o.vm.importerPolicyWorkload());
  }
  const options = o.options;
  return new ComposeNetworkPolicies(scope, 'NetworkPolicies', {
    ...options,
    ingressControllerNamespaceLabels: options.ingressControllerNamespaceLabels ?? {
      'kubernetes.io/metadata.name':
        o.props.ingressControllerNamespace ?? COMPOSE_APP_DEFAULTS.ingressControllerNamespace,
    },
    ingressControllerPodLabels: options.ingressControllerPodLabels ?? o.props.ingressControllerPodLabels,
    namespace: o.namespace,
    networks: o.model.networks.map((n) => ({ name: n.name, internal: n.internal, at: n.at })),
    workloads,
  });
}

/** The egress to the managed endpoints that the compose services of one pod reach. */
function externalEgress(externals: readonly ExternalService[], composeNames: readonly string[]): CidrEgress[] {
  return externals
    .filter((e) => e.egress !== undefined && e.clients.some((c) => composeNames.includes(c)))
    .map((e) => e.egress!);
}
