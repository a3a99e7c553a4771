/**
 * The plain, typed compose model that the loader produces and the constructs consume.
 *
 * Rules of the model:
 * - no Kubernetes types and no cdk8s types: plain data only, so a model can be written by hand in a test;
 * - every list is sorted (by name, or by the key noted on it), so the same app always gives the same model;
 * - every item keeps `at`, the compose location it came from, so later messages can name it;
 * - units are normalised: memory and sizes in bytes, cpu in cores (fractional), durations in seconds (fractional);
 * - file contents the constructs need (env files, secret and config files, single-file binds) are read by the
 *   loader, so the constructs never touch the file system.
 */

/** Where an item came from: a compose file and a key path such as `services.web.ports[1]`. */
export interface ComposeLocation {
  /** The compose file as the user named it (relative paths stay relative; never made absolute). */
  readonly file: string;
  /** Key path inside the file, e.g. `services.web.ports[1]`. Empty for the document root. */
  readonly path: string;
  /** 1-based line, where the YAML parser knows it. */
  readonly line?: number;
  /** 1-based column, where the YAML parser knows it. */
  readonly column?: number;
}

/** A service left out of the model because none of its profiles is active. */
export interface ProfileDisabledService {
  readonly name: string;
  /** Its profiles, sorted; activating one of them brings it in. */
  readonly profiles: readonly string[];
  readonly at: ComposeLocation;
}

/** A whole compose project after loading, merging, interpolation and normalisation. */
export interface ComposeModel {
  /** Project name: the top-level `name`, the `projectName` option, or the project folder's name, normalised. */
  readonly name: string;
  /** The compose files, in merge order, as the user named them. */
  readonly files: readonly string[];
  /** Services, sorted by name. Services excluded by `profiles` are not here. */
  readonly services: readonly ComposeService[];
  /**
   * The services left out because none of their `profiles` is active, sorted by name.
   * @default - none (a model built by hand)
   */
  readonly profileDisabled?: readonly ProfileDisabledService[];
  /** Top-level named volumes, sorted by name. */
  readonly volumes: readonly ComposeVolume[];
  /** Top-level networks, sorted by name; includes the implicit `default` network when a service uses it. */
  readonly networks: readonly ComposeNetwork[];
  /** Top-level secrets, sorted by name. */
  readonly secrets: readonly ComposeSecret[];
  /** Top-level configs, sorted by name. */
  readonly configs: readonly ComposeConfig[];
  /** Top-level `x-` extension fields, by key, after interpolation and merge-key resolution. */
  readonly extensions: Readonly<Record<string, unknown>>;
  /**
   * Values the loader classified as secret, sorted: sensitive variables of `.env`, env files and the shell that the
   * files use, sensitive `environment` values, embedded passwords and secret file contents. Outputs never carry
   * them outside a Secret, and messages print them as `[redacted]`.
   * @default - none
   */
  readonly secretValues?: readonly string[];
  /**
   * The interpolation variables the files read (shell over env files) that were set, by name, sorted: what each
   * `${VAR}` took. Values may be secret: outputs carry them only inside a Secret.
   * @default - none (a model built by hand)
   */
  readonly variables?: Readonly<Record<string, string>>;
  readonly at: ComposeLocation;
}

export type Protocol = 'tcp' | 'udp' | 'sctp';

/** One container port from `ports`. Ranges are expanded into one item per port, all with the same `at`. */
export interface PortMapping {
  /** Container port, 1-65535. */
  readonly target: number;
  /** Host port, 1-65535; undefined when compose picks a random host port (`"80"` or long syntax without it). */
  readonly published?: number;
  readonly protocol: Protocol;
  /** Host IP the port is bound to, e.g. `127.0.0.1`; undefined for all interfaces. */
  readonly hostIp?: string;
  /** Long syntax `mode`. */
  readonly mode: 'ingress' | 'host';
  /** Long syntax `name`. */
  readonly name?: string;
  /** Long syntax `app_protocol`, e.g. `http`. */
  readonly appProtocol?: string;
  readonly at: ComposeLocation;
}

/** One port from `expose`: reachable by other services, never published. Ranges are expanded. */
export interface ExposedPort {
  readonly target: number;
  readonly protocol: Protocol;
  readonly at: ComposeLocation;
}

/** One environment variable after merging `env_file` and `environment` (environment wins). */
export interface EnvVar {
  readonly name: string;
  /** The value after interpolation. */
  readonly value: string;
  /**
   * The value as the compose file writes it, when it names interpolation variables (`${DBPASS}`,
   * `redis://:${REDISPASS}@redis`), or `${NAME}` for a `NAME` without a value (compose takes it from the same variables).
   * @default - the value is literal
   */
  readonly written?: string;
  /** Which key it came from. */
  readonly origin: 'environment' | 'env_file';
  readonly at: ComposeLocation;
}

/** Content of a file the loader read for the constructs. */
export interface FileContent {
  /** The path as written in the compose file, relative to the project folder where it was relative. */
  readonly path: string;
  /** UTF-8 text, or base64 when `binary` is true. */
  readonly text: string;
  readonly binary: boolean;
  /**
   * Why the file is secret by nature, in words (`a PEM private key`, `a key file (named *.key)`): it is kept in a
   * Secret, never a ConfigMap. See `secretFileKind`.
   * @default - nothing marks it (it may still hold a secret value, which the app looks for)
   */
  readonly secret?: string;
}

/** A volume mount of a service, from the short or long syntax, or from `tmpfs`. */
export interface VolumeMount {
  /**
   * `volume`: a named volume (`source` names a top-level volume) or an anonymous one (no `source`);
   * `bind`: a host path; `tmpfs`: memory-backed.
   */
  readonly type: 'volume' | 'bind' | 'tmpfs';
  /** Named volume name, or the bind path exactly as written (after interpolation). Undefined when anonymous or tmpfs. */
  readonly source?: string;
  /** Mount path in the container. */
  readonly target: string;
  readonly readOnly: boolean;
  /** Long syntax `volume.subpath`. */
  readonly subpath?: string;
  /** `volume.nocopy: true` or the short `:nocopy`: a new named volume does not receive the image's files. */
  readonly nocopy?: boolean;
  /** tmpfs size in bytes, where given. */
  readonly sizeBytes?: number;
  /**
   * For binds: what the host path is, seen from the project folder.
   * `file` and `directory` exist; `missing` does not exist; `outside` leaves the project folder and was not read.
   */
  readonly bind?: {
    readonly kind: 'file' | 'directory' | 'missing' | 'outside';
    /** For `file` binds inside the project (at most 1 MiB): the file's content. */
    readonly content?: FileContent;
    /**
     * For `directory` binds inside the project whose files add up to at most 1 MiB (and 256 files): each regular
     * file, `path` relative to the directory (`sub/file.pem`), sorted by path. Undefined when the tree is larger.
     */
    readonly files?: readonly FileContent[];
    /** For `directory` binds inside the project: the bytes of its files, as far as they were counted. */
    readonly sizeBytes?: number;
  };
  readonly at: ComposeLocation;
}

export type DependencyCondition = 'service_started' | 'service_healthy' | 'service_completed_successfully';

/** One `depends_on` entry. `links` and `network_mode: service:x` add `service_started` entries too. */
export interface Dependency {
  /** Name of the service depended on; the loader guarantees it exists (or that `required` is false). */
  readonly service: string;
  readonly condition: DependencyCondition;
  readonly required: boolean;
  readonly restart: boolean;
  readonly at: ComposeLocation;
}

/** A compose healthcheck. */
export interface Healthcheck {
  /** `disable: true` or `test: ["NONE"]`. */
  readonly disabled: boolean;
  /**
   * `exec`: `CMD` form, `command` is the argv. `shell`: `CMD-SHELL` or string form, `command` holds one script.
   * Undefined when the healthcheck sets only timings (the image's HEALTHCHECK is inherited).
   */
  readonly test?: { readonly kind: 'exec' | 'shell'; readonly command: readonly string[] };
  readonly intervalSeconds?: number;
  readonly timeoutSeconds?: number;
  readonly retries?: number;
  readonly startPeriodSeconds?: number;
  readonly startIntervalSeconds?: number;
  readonly at: ComposeLocation;
}

/** A GPU or other device request from `deploy.resources.reservations.devices`. */
export interface DeviceRequest {
  readonly capabilities: readonly string[];
  readonly driver?: string;
  /** A count, or `all`. */
  readonly count?: number | 'all';
  readonly deviceIds: readonly string[];
  readonly options: Readonly<Record<string, string>>;
  readonly at: ComposeLocation;
}

export interface ResourceAmounts {
  /** CPU cores, fractional (`0.5` is 500m). */
  readonly cpus?: number;
  readonly memoryBytes?: number;
  readonly pids?: number;
  /** Only under reservations. */
  readonly devices: readonly DeviceRequest[];
}

export interface Deploy {
  readonly replicas?: number;
  readonly mode?: 'replicated' | 'global';
  /** `deploy.resources.limits`, filled from the legacy `cpus` and `mem_limit` where deploy does not set them. */
  readonly limits: ResourceAmounts;
  /** `deploy.resources.reservations`, filled from the legacy `mem_reservation` where deploy does not set it. */
  readonly reservations: ResourceAmounts;
  readonly restartPolicy?: {
    readonly condition: 'none' | 'on-failure' | 'any';
    readonly delaySeconds?: number;
    readonly maxAttempts?: number;
    readonly windowSeconds?: number;
  };
  readonly labels: Readonly<Record<string, string>>;
  readonly at: ComposeLocation;
}

/** A service's attachment to a network. */
export interface ServiceNetwork {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly ipv4Address?: string;
  readonly ipv6Address?: string;
  readonly at: ComposeLocation;
}

/** A service's use of a top-level secret or config. */
export interface FileReference {
  /** The top-level secret or config name. */
  readonly source: string;
  /**
   * Absolute mount path in the container: for secrets `/run/secrets/<target or source>`,
   * for configs `/<source>` unless `target` says otherwise (a relative target is made absolute as compose does).
   */
  readonly target: string;
  readonly uid?: string;
  readonly gid?: string;
  /** File mode, e.g. 0o440. */
  readonly mode?: number;
  readonly at: ComposeLocation;
}

export interface Ulimit {
  readonly name: string;
  readonly soft: number;
  readonly hard: number;
}

export interface ExtraHost {
  readonly hostname: string;
  readonly ip: string;
}

export type RestartPolicy = 'no' | 'always' | 'on-failure' | 'unless-stopped';

/** One compose service. */
export interface ComposeService {
  /** The compose service name, exactly as written (may be camelCase or contain underscores). */
  readonly name: string;
  /**
   * The image: the loader's `images` option, else `image`, else for a service built from source the image
   * `docker compose build` tags, `<project>-<service>` (under the `registry` option when given).
   */
  readonly image: string;
  /**
   * `build`, for the build commands of the runbook and `analyze`; the build context is never read. Paths are as
   * written, relative to the project folder (or, from an extended or included file, made relative to it).
   */
  readonly build?: {
    readonly context: string;
    readonly dockerfile?: string;
    readonly target?: string;
    /** Build arguments after interpolation, by name (values may be secret: never print them). */
    readonly args: Readonly<Record<string, string>>;
    /** `build.platforms`, else the service's `platform`; empty when neither is given. */
    readonly platforms: readonly string[];
    /**
     * True when the service runs the image this build makes (its `image:`, or `<project>-<service>` without one);
     * false when the loader's `images` option named another image for it.
     */
    readonly runsBuiltImage: boolean;
  };
  /** `entrypoint` as an argv (a string is split like a shell). */
  readonly entrypoint?: readonly string[];
  /** `command` as an argv (a string is split like a shell). */
  readonly command?: readonly string[];
  /** Sorted by name. */
  readonly environment: readonly EnvVar[];
  /** Sorted by target, then protocol, then published. */
  readonly ports: readonly PortMapping[];
  /** Sorted by target, then protocol. */
  readonly expose: readonly ExposedPort[];
  /** Sorted by target. Includes `tmpfs` entries as `type: 'tmpfs'`. */
  readonly volumes: readonly VolumeMount[];
  /** Sorted by service. */
  readonly dependsOn: readonly Dependency[];
  readonly healthcheck?: Healthcheck;
  readonly deploy: Deploy;
  readonly restart?: RestartPolicy;
  readonly user?: string;
  readonly workingDir?: string;
  /** Sorted, upper case without the `CAP_` prefix. */
  readonly capAdd: readonly string[];
  readonly capDrop: readonly string[];
  readonly privileged: boolean;
  readonly readOnly: boolean;
  /** `network_mode`, e.g. `host`, `none`, `service:db`. */
  readonly networkMode?: string;
  /** Sorted by name. Empty when `network_mode` is set; `[default]` when the service names no network. */
  readonly networks: readonly ServiceNetwork[];
  /** Device mappings as written, e.g. `/dev/kvm:/dev/kvm`. */
  readonly devices: readonly string[];
  readonly sysctls: Readonly<Record<string, string>>;
  /** Sorted by name. */
  readonly ulimits: readonly Ulimit[];
  readonly hostname?: string;
  readonly containerName?: string;
  /** Sorted by hostname. */
  readonly extraHosts: readonly ExtraHost[];
  readonly stopGracePeriodSeconds?: number;
  readonly labels: Readonly<Record<string, string>>;
  /** Sorted by source. */
  readonly secrets: readonly FileReference[];
  /** Sorted by source. */
  readonly configs: readonly FileReference[];
  readonly profiles: readonly string[];
  readonly stdinOpen: boolean;
  readonly tty: boolean;
  readonly platform?: string;
  /** `pre_start` hooks, in the order written: each runs to completion before the service's container starts. */
  readonly preStart?: readonly PreStartHook[];
  /** `post_start` hooks, in the order written: run in the container once it has started. */
  readonly postStart?: readonly LifecycleHook[];
  /** `pre_stop` hooks, in the order written: run in the container before it is stopped. */
  readonly preStop?: readonly LifecycleHook[];
  /** `x-` extension fields on the service, by key. */
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly at: ComposeLocation;
}

/** A `post_start` or `pre_stop` hook: a command run in the service's container. */
export interface LifecycleHook {
  /** The argv (a string is split like a shell). */
  readonly command: readonly string[];
  /** What the hook asks that a command in the container cannot do: `user`, `privileged`, `working_dir`, `environment`. */
  readonly unsupported: readonly string[];
  readonly at: ComposeLocation;
}

/** A `pre_start` hook: a container of its own, run to completion before the service's, with its volumes. */
export interface PreStartHook {
  /** The argv; undefined runs the image's entrypoint. */
  readonly command?: readonly string[];
  /** The image; undefined is the service's. */
  readonly image?: string;
  readonly user?: string;
  readonly privileged: boolean;
  readonly workingDir?: string;
  /** Variables added to (or overriding) the service's environment, by name. */
  readonly environment: readonly EnvVar[];
  /** Run once per replica (true), or once for the service before any replica starts (false, compose's default). */
  readonly perReplica: boolean;
  readonly at: ComposeLocation;
}

export interface ComposeVolume {
  readonly name: string;
  readonly external: boolean;
  /** `name` of the volume (for external volumes, the name it has outside the project). */
  readonly externalName?: string;
  readonly driver?: string;
  readonly driverOpts: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly at: ComposeLocation;
}

export interface ComposeNetwork {
  readonly name: string;
  readonly internal: boolean;
  readonly external: boolean;
  readonly driver?: string;
  /** IPAM subnets, in the order written. */
  readonly subnets: readonly string[];
  readonly enableIpv6: boolean;
  readonly labels: Readonly<Record<string, string>>;
  readonly at: ComposeLocation;
}

/** Where a secret's or config's content comes from. */
export type FileSource =
  | { readonly kind: 'file'; readonly content: FileContent }
  | { readonly kind: 'environment'; readonly variable: string; readonly content: FileContent }
  | { readonly kind: 'content'; readonly content: FileContent }
  | { readonly kind: 'external'; readonly externalName: string }
  /** A file that leaves the project folder and was not read (see the loader's `allowOutsideProject`). */
  | { readonly kind: 'outside'; readonly path: string };

export interface ComposeSecret {
  readonly name: string;
  readonly source: FileSource;
  readonly labels: Readonly<Record<string, string>>;
  readonly at: ComposeLocation;
}

export interface ComposeConfig {
  readonly name: string;
  readonly source: FileSource;
  readonly labels: Readonly<Record<string, string>>;
  readonly at: ComposeLocation;
}
