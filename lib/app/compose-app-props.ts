import { Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { LoadComposeOptions } from '../compose/load';
import { ComposeModel } from '../compose/model';
import { ComposeNetworkPoliciesProps } from '../base/network-policy';
import { DatabaseBackupOptions } from '../stateful/database-backup';
import { WorkloadController } from '../stateful/stateful-dependency';
import { ComposeVmProps } from '../vm/compose-vm';
import { SharedVolumes } from './storage/claim-sources';
import { NamespaceQuotaProps } from './quota/quota';

export { SharedVolumes } from './storage/claim-sources';
import { HttpOptions, ResourceDefaults, ServiceOverrides, ServiceTarget, VolumeOverrides } from './settings';

/** The `node.metadata` type of a ComposeApp's warnings (one entry per line, see `ComposeApp.warningsOf`). */
export const WARNING_METADATA = 'cdk8s-compose:warning';

/** The documented defaults of `ComposeAppProps`, in one place. */
export const COMPOSE_APP_DEFAULTS = {
  /**
   * Requests of containers whose compose service sets none, and the limits they get with `defaultLimits` (without
   * it, a container has a limit only where compose sets one).
   */
  resources: {
    cpuRequest: kplus.Cpu.millis(100),
    cpuLimit: kplus.Cpu.units(1),
    memoryRequest: Size.mebibytes(128),
    memoryLimit: Size.mebibytes(512),
  },
  /** Size of a claim with no size given. */
  storageSize: Size.gibibytes(1),
  /** Ingress hosts are `<service>.<ingressDomain>`. */
  ingressDomain: 'example.com',
  /** The ingress controller's class. */
  ingressClassName: 'nginx',
  /** The ingress controller's namespace, which the NetworkPolicies let in to the Ingress ports. */
  ingressControllerNamespace: 'ingress-nginx',
  /** The controller's rewrite-target annotation. With the default path `/` it rewrites nothing. */
  ingressAnnotations: { 'nginx.ingress.kubernetes.io/rewrite-target': '/' } as Readonly<Record<string, string>>,
  /** Container ports that are HTTP when nothing declares it. */
  httpPorts: [80, 8080] as readonly number[],
  /** initialDelaySeconds and periodSeconds of the HTTP probes. */
  httpProbeInitialDelay: Duration.seconds(10),
  httpProbePeriod: Duration.seconds(10),
  /** How long a dependent waits for a dependency. */
  waitTimeout: Duration.seconds(300),
  /** Image of the TCP waits: needs `sh` and a `nc` with `-z`. */
  waitImage: 'busybox:1.36',
  /**
   * Image of the API waits: kubectl as the entrypoint, no shell needed. The official image starts at 1.28, within
   * kubectl's one-minor-version skew of the 1.27 API this library targets (Bitnami withdrew its versioned tags).
   */
  kubectlImage: 'registry.k8s.io/kubectl:v1.28.15',
} as const;

/** Namespaces the cluster uses itself: an app goes there only with `allowSystemNamespace`, and is never torn down with them. */
export const SYSTEM_NAMESPACES: readonly string[] = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

/** Props of `ComposeApp`: the compose project (a model or files) and the overrides of how it is migrated. */
export interface ComposeAppProps {
  /**
   * A loaded compose model. Give this or `composeFile`.
   * @default - loaded from `composeFile`
   */
  readonly model?: ComposeModel;
  /**
   * Compose file(s) to load, relative to `loadOptions.workingDir`; several merge in compose's override order.
   * @default - `model` is used
   */
  readonly composeFile?: string | readonly string[];
  /**
   * Options of the loader for `composeFile` (working folder, env files, profiles, images, …).
   * `ComposeApp.hermeticLoadOptions()` pins the environment, so that the output is the same on every machine.
   * @default - the loader's defaults: the shell's environment and the project's `.env` file
   */
  readonly loadOptions?: Omit<LoadComposeOptions, 'files'>;
  /**
   * The registry, `HOST[/PATH]`, that the images of services built from source are pushed to: it goes before
   * `<project>-<service>` (and before an `image:` that names no registry host) when the app loads `composeFile`.
   * With `model`, give it to `loadCompose` instead.
   * @default - `loadOptions.registry`, else the references stay as `docker compose build` tags them
   */
  readonly registry?: string;
  /**
   * The namespace every object lives in.
   * @default - the compose project name as a DNS-1123 label
   */
  readonly namespace?: string;
  /**
   * Accept a namespace the cluster itself uses (`kube-system`, `kube-public`, `kube-node-lease`, `default`), or one a
   * platform component uses (the ingress controller's, `argocd`, `flux-system`, `cert-manager`, … see
   * `PLATFORM_NAMESPACES`). An app there gets a default-deny NetworkPolicy and a ResourceQuota that also bind the
   * cluster's own workloads, so it is refused unless this is set.
   * @default false
   */
  readonly allowSystemNamespace?: boolean;
  /**
   * Render the Namespace object (with the label `name`).
   * @default true
   */
  readonly createNamespace?: boolean;
  /**
   * Overrides per compose service name.
   * @default - none
   */
  readonly services?: Readonly<Record<string, ServiceOverrides>>;
  /**
   * Overrides per top-level compose volume name, or per bound project folder (`./library`) whose claim the app makes.
   * @default - none
   */
  readonly volumes?: Readonly<Record<string, VolumeOverrides>>;
  /**
   * How pods that mount one claim (several services, or replicas of one service) share it: on one node through a
   * required podAffinity (ReadWriteOnce claims), or anywhere with ReadWriteMany claims.
   * @default SharedVolumes.SAME_NODE
   */
  readonly sharedVolumes?: SharedVolumes | 'SameNode' | 'ReadWriteMany';
  /**
   * Copy-up as docker does it: a new named volume (without `volume.nocopy`) receives the image's files at its mount
   * path, by an init container from the service's own image that runs once per claim. `false` turns it off for every
   * service (`services[name].copyUp` for one).
   * @default true
   */
  readonly copyUp?: boolean;
  /**
   * Requests for containers whose compose service sets none, and their limits where limits are defaulted: with
   * `defaultLimits`, or for a limit given here.
   * @default - requests 100m cpu and 128Mi memory; limits (with `defaultLimits`) 1 cpu and 512Mi memory
   */
  readonly defaultResources?: ResourceDefaults;
  /**
   * Give every container without a compose limit the default cpu and memory limits (`defaultResources`). Without it,
   * a container gets a limit only where compose sets one (or `defaultResources` names that limit), as compose ran it:
   * a memory limit compose never set gets a process OOM-killed that ran under compose. The requests stay either way.
   * The ResourceQuota bounds limits only when every container has one.
   * @default false
   */
  readonly defaultLimits?: boolean;
  /**
   * Size of a claim that compose gives no size for.
   * @default Size.gibibytes(1)
   */
  readonly storageSize?: Size;
  /**
   * storageClassName of the claims.
   * @default - the cluster's default storage class
   */
  readonly storageClassName?: string;
  /**
   * Ingress hosts default to `<service name>.<ingressDomain>`.
   * @default 'example.com'
   */
  readonly ingressDomain?: string;
  /**
   * `ingressClassName` of the Ingresses.
   * @default 'nginx'
   */
  readonly ingressClassName?: string;
  /**
   * The namespace the ingress controller runs in: the NetworkPolicies let traffic to the Ingress ports in from it.
   * @default 'ingress-nginx'
   */
  readonly ingressControllerNamespace?: string;
  /**
   * Labels of the ingress controller's pods, to narrow that allow rule to them within its namespace.
   * @default - every pod in the ingress controller's namespace
   */
  readonly ingressControllerPodLabels?: Readonly<Record<string, string>>;
  /**
   * Annotations of the Ingresses.
   * @default { 'nginx.ingress.kubernetes.io/rewrite-target': '/' }
   */
  readonly ingressAnnotations?: Readonly<Record<string, string>>;
  /**
   * Container ports that count as HTTP for the exposure rule when nothing declares a service HTTP.
   * @default [80, 8080]
   */
  readonly httpPorts?: readonly number[];
  /**
   * initialDelaySeconds and periodSeconds of the HTTP probes of services declared HTTP.
   * @default - 10 s each
   */
  readonly httpProbes?: Pick<HttpOptions, 'initialDelay' | 'period'>;
  /**
   * Name fragments that make an environment variable sensitive (rule 3).
   * @default DEFAULT_SENSITIVE_NAME_PATTERNS
   */
  readonly sensitiveNamePatterns?: readonly string[];
  /**
   * How long a dependent waits for each dependency before its pod fails (and restarts).
   * @default Duration.seconds(300)
   */
  readonly waitTimeout?: Duration;
  /**
   * Image of the TCP dependency waits.
   * @default 'busybox:1.36'
   */
  readonly waitImage?: string;
  /**
   * Image of the waits that read the API (Jobs, portless services): its entrypoint must be `kubectl`.
   * @default 'registry.k8s.io/kubectl:v1.28.15'
   */
  readonly kubectlImage?: string;
  /**
   * Controller of the stateful dependencies.
   * @default WorkloadController.DEPLOYMENT
   */
  readonly controller?: WorkloadController;
  /**
   * Backups of the stateful dependencies: `true` (or the backup's options) for every one, `false` for none.
   * @default - a daily backup at 03:00 keeping 7, for the stateful dependencies whose data compose keeps in a named
   * volume or a bind mount at the engine's data path (or a folder above it); none for the others (a cache without a
   * volume keeps its data in the pod). `true` or options give every one a backup, and a volume-less cache a claim for it
   */
  readonly backup?: DatabaseBackupOptions | boolean;
  /**
   * NetworkPolicies from the compose networks (`true`, or their options), or `false` for none.
   * @default true: default deny, DNS, per-network allows, and ingress from `ingressControllerNamespace`
   */
  readonly networkPolicies?: Omit<ComposeNetworkPoliciesProps, 'namespace' | 'networks' | 'workloads'> | boolean;
  /**
   * The ResourceQuota (`true`, or its options such as `hard` amounts), or `false` for none.
   * @default true: computed from the app at its peak plus 20% headroom
   */
  readonly quota?: Omit<NamespaceQuotaProps, 'namespace'> | boolean;
  /**
   * Where services run unless their overrides or `x-cdk8s-compose.target` say otherwise: `ServiceTarget.AUTO` sends
   * the services `assessService` flags to the VM (each reported as `vm-target` with the reasons), `ServiceTarget.VM`
   * sends every service.
   * @default ServiceTarget.CONTAINER
   */
  readonly target?: ServiceTarget;
  /**
   * The golden-image VM that runs the services routed to it (by `target`, the per-service `target`, or
   * `vm.services`): one VirtualMachine booted from an image whose compose project runs them, with a Service per
   * service. Required once a service goes to the VM.
   * @default - no VM
   */
  readonly vm?: ComposeAppVmOptions;
  /**
   * Annotate every object with `argocd.argoproj.io/sync-wave`: its deploy wave's position (0 the Namespace, its quota
   * and policies; 1 the stateful dependencies and what they use; 2 the rest; 3 the VM; 4 the containers that wait for
   * the VM), as `planWaves` splits the app.
   * Argo CD then applies the waves in order and waits for each to be healthy before the next; other tools ignore it.
   * @default true
   */
  readonly syncWaves?: boolean;
  /**
   * Labels on every object the app makes and on every pod template (the VM's included), as kompose's `--labels`:
   * for selecting the app's objects (`kubectl get all -l team=shop`). `app`, `name`, `network.cdk8s-compose.io/…` and
   * `kubevirt.io/…` are the app's own and refused. Objects added to the app after its constructor do not get them.
   * @default - none
   */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Annotations on every object the app makes and on every pod template (the VM's included), as kompose's
   * `--annotations`. A value that quotes a secret of the app is refused.
   * @default - none
   */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** The app's golden-image VM: `ComposeVm`'s options, less what the app decides. */
export interface ComposeAppVmOptions extends Omit<
  ComposeVmProps,
  'model' | 'services' | 'serviceNames' | 'serviceType' | 'namespace'
> {
  /**
   * Services to run in the VM, by compose name, on top of those routed by `target`.
   * @default - none
   */
  readonly services?: readonly string[];
  /**
   * The VM's name (also its bundle's folder `golden-image/<name>/` and image `<name>.qcow2`).
   * @default `<namespace>-vm`
   */
  readonly name?: string;
}
