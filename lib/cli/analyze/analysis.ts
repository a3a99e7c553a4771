// The shape of `analyze --json`: the assessment of a project, service by service.

/** The migration assessment of a whole project (`analyze --json` prints it). */
export interface ProjectAnalysis {
  readonly project: string;
  readonly files: readonly string[];
  readonly namespace: string;
  readonly services: readonly ServiceAnalysis[];
  /** One `docker buildx bake` that builds and pushes every image built from source; null when there is none. */
  readonly buildAll: string | null;
  /** Warnings that belong to no single service. */
  readonly warnings: readonly AnalysisWarning[];
  /** The services the active profiles leave out (`--profile NAME` brings them in), with their profiles. */
  readonly leftOutByProfiles: readonly { readonly service: string; readonly profiles: readonly string[] }[];
  /**
   * The VM whose golden image convert and deploy need a URL for (`--image-base-url`), when services run in a VM
   * and none was given; null otherwise.
   */
  readonly imageBaseUrlNeededBy: string | null;
}

/** A finding of the conversion: its stable code (`directory-bind`, `empty-secret`, …) and its line. */
export interface AnalysisWarning {
  readonly code: string;
  /** `compose.yaml:12:7: services.web.ports[1]: …`, as `convert` prints it. */
  readonly message: string;
}

/** The assessment of one compose service. */
export interface ServiceAnalysis {
  /** The compose name. */
  readonly service: string;
  /** The Kubernetes name of its workload and Service. */
  readonly name: string;
  /**
   * The assessment: `vm` when something in it cannot run as an ordinary container (`reasons` says what). It is a
   * recommendation: without `--target auto` (or `vm`) the service still runs in a container (`runsIn`).
   */
  readonly target: 'container' | 'vm';
  readonly reasons: readonly string[];
  /**
   * What was found but does not move it, each with why: a sysctl on a database or cache (its stateful dependency's
   * pod sets none).
   */
  readonly weakReasons: readonly string[];
  /** Where the conversion puts it with the options given. */
  readonly runsIn: 'container' | 'vm';
  /** `Deployment`, `StatefulSet`, `Job`, `CronJob`, or `VirtualMachine <name>` for a service in the VM. */
  readonly workload: string;
  readonly replicas: number;
  readonly stateful: boolean;
  /** The database or cache engine detected, e.g. `postgres`. */
  readonly engine: string | null;
  readonly exposure: Exposure;
  readonly volumes: readonly VolumeAnalysis[];
  /** Secrets by name, never by value. */
  readonly secrets: readonly SecretAnalysis[];
  readonly dependsOn: readonly DependencyAnalysis[];
  /** How to build and push the image it runs, when that image is built from its `build:`; else null. */
  readonly build: BuildAnalysis | null;
  readonly warnings: readonly AnalysisWarning[];
}

/** The image a service builds, and the commands (secret build arguments by name only). */
export interface BuildAnalysis {
  readonly image: string;
  readonly commands: readonly string[];
  readonly argsFromEnvironment: readonly string[];
  /** Those of `argsFromEnvironment` whose values span lines. */
  readonly argsWithLineBreaks: readonly string[];
}

export interface Exposure {
  /** The ClusterIP Service other workloads reach it by, or null when it has no ports (or is a Job). */
  readonly internal: string | null;
  /** The ways in from outside the cluster, one per published port. */
  readonly external: readonly ExternalAccess[];
  /**
   * Published ports kept inside the cluster (bound to 127.0.0.1 in compose, or a database's): reached with
   * `kubectl port-forward` while it runs.
   */
  readonly portForward: readonly PortForward[];
}

export interface PortForward {
  /** The published port: the local port of the forward. */
  readonly port: number;
  /** The container port. */
  readonly targetPort: number;
  readonly protocol: string;
  /** The host address compose bound it to, or null. */
  readonly hostIp: string | null;
  /** The command that opens it. */
  readonly command: string;
}

export interface ExternalAccess {
  /** `Ingress`, `LoadBalancer` or `NodePort`. */
  readonly via: string;
  /** The published port. */
  readonly port: number;
  /** The container port. */
  readonly targetPort: number;
  readonly protocol: string;
  readonly host: string | null;
  readonly path: string | null;
}

export interface VolumeAnalysis {
  /** `volume`, `bind`, `tmpfs`, `secret` or `config`. */
  readonly type: string;
  /** The named volume, bind path, secret or config; null for anonymous volumes and tmpfs. */
  readonly source: string | null;
  readonly target: string;
  /** What it became, e.g. `PersistentVolumeClaim db-data`, `ConfigMap web-files key nginx.conf`, `not migrated`. */
  readonly becomes: string;
}

export interface SecretAnalysis {
  /**
   * `env`: a sensitive variable (by its name, or a URL with a password); `secret`: a compose secret; `file`: a bound
   * file that holds a secret value; `copy`: a variable that is no secret itself but is kept in a Secret because its
   * value contains one (not counted as a secret).
   */
  readonly kind: 'env' | 'secret' | 'file' | 'copy';
  readonly name: string;
  /** The Secret that holds it; null for a service in the VM whose value the operator supplies. */
  readonly secret: string | null;
  /** True when its value is empty (an unset variable): a database refuses an empty password. */
  readonly empty: boolean;
}

export interface DependencyAnalysis {
  readonly service: string;
  readonly condition: string;
  readonly required: boolean;
}
