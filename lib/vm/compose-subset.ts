import { ComposeError, ComposeWarning } from '../compose/errors';
import {
  ComposeConfig, ComposeModel, ComposeSecret, ComposeService, EnvVar, FileContent, FileReference, Healthcheck,
  ResourceAmounts, VolumeMount,
} from '../compose/model';
import { toYaml11 } from './yaml';
import { MIN_SCANNED_SECRET_LENGTH, Redactor, embeddedPasswords } from '../compose/sensitive';
import { compare, sortedRecord } from '../util/sort';

/** Decides whether an environment variable's value is secret (rule 3). */
export type SensitiveEnvPredicate = (env: EnvVar, service: ComposeService) => boolean;

/** A file of the app folder, relative to it (`compose.yaml`, `conf/nginx.conf`, `configs/app_config`). */
export interface AppFile {
  readonly path: string;
  /** UTF-8 text, or base64 when `binary`. */
  readonly text: string;
  readonly binary: boolean;
}

/** A port of a service in the VM: the container port and the VM port it is published on. */
export interface VmPublishedPort {
  /** The compose service. */
  readonly service: string;
  /** Container port: what other services address (`db:5432`). */
  readonly target: number;
  /** The port on the VM's address, where a Service's `targetPort` points. */
  readonly hostPort: number;
  readonly protocol: 'tcp' | 'udp' | 'sctp';
  /** From `ports` (published by the compose file) or `expose` (published only so the cluster reaches it). */
  readonly origin: 'ports' | 'expose';
}

/** Something the operator must supply before the app starts in the VM; never written into the bundle. */
export interface OperatorInput {
  /** `env` (a variable of the app folder's `.env`) or `file` (a file in the app folder). */
  readonly kind: 'env' | 'file';
  /** The variable name, or the file path relative to the app folder. */
  readonly name: string;
  /** Who needs it, e.g. `services.db.environment.POSTGRES_PASSWORD`. */
  readonly usedBy: readonly string[];
}

/** Options for {@link composeSubset}. */
export interface ComposeSubsetOptions {
  /** The services to keep; every other service is left out. */
  readonly services: readonly string[];
  /** Whether an env value is secret. */
  readonly isSensitive: SensitiveEnvPredicate;
  /** Whether a file's text holds a secret (e.g. contains a sensitive env value); such files are not written. */
  readonly containsSecret: (text: string) => boolean;
  /**
   * Services outside the VM that the image's unit waits for, with the `host:port` it waits on.
   * @default - none
   */
  readonly awaited?: Readonly<Record<string, string>>;
  /**
   * Every secret string of the project (env values, embedded passwords, `.env` values, secret files). Wherever one
   * appears in the compose file (a command, a label, a driver option), it becomes a `${VAR}` reference to the app
   * folder's `.env`, which is written from a Secret: the bundle never holds the value.
   * @default - none
   */
  readonly secretValues?: Redactor;
}

/** The compose project of a VM: the subset's compose file, the files beside it, and what the operator supplies. */
export interface ComposeSubset {
  /** The compose file for the app folder. */
  readonly composeFile: string;
  /** Non-secret files of the app folder (config files, bind-mounted files), sorted by path. */
  readonly files: readonly AppFile[];
  /** Folders of the app folder to create empty (bind-mounted folders whose content the loader does not read), sorted. */
  readonly directories: readonly string[];
  /** Secret inputs the operator supplies, sorted by kind and name. */
  readonly operatorInputs: readonly OperatorInput[];
  /** The images the services run, sorted, for pulling into the image at build time. */
  readonly images: readonly string[];
  /** Ports published on the VM, sorted by service, target and protocol. */
  readonly ports: readonly VmPublishedPort[];
  /** Compose networks the services are on (after `network_mode`), sorted. */
  readonly networks: readonly string[];
  /** Things carried over with a caveat. */
  readonly warnings: readonly ComposeWarning[];
  /**
   * The secret values, by `.env` variable and by file path, for delivery into a Secret (cloud-init); never written
   * into the bundle.
   */
  readonly secretEnv: Readonly<Record<string, string>>;
  readonly secretFiles: Readonly<Record<string, FileContent>>;
}

/** A reference to a `.env` variable in the compose file; the only text that is not `$`-escaped. */
class EnvReference {
  constructor(public readonly variable: string, public readonly appDirectory: string) {}
  public toString(): string {
    return `\${${this.variable}:?set ${this.variable} in ${this.appDirectory}/.env}`;
  }
}

const SECRETS_DIR = 'secrets';
const CONFIGS_DIR = 'configs';
const RESERVED_FILES = new Set(['compose.yaml', '.env', '.env.example']);

/**
 * The compose project that runs `services` of `model` inside a VM, rendered from the model:
 *
 * - only the chosen services, the networks, volumes, secrets and configs they use; `depends_on` on a service left
 *   out is dropped (the VM reaches it through its Kubernetes Service);
 * - every container port is published on the VM (`expose` too), so that a Service can reach it; a port bound to a
 *   host address (`127.0.0.1:…`) stays local;
 * - secret env values become `${VAR:?…}` references to the app folder's `.env`, and secret files (compose secrets,
 *   bind-mounted files or configs that contain a secret) are expected in the app folder: the operator supplies both;
 * - bind-mounted files and config contents are written beside the compose file at the paths the compose file uses;
 * - every other `$` is escaped as `$$`, so the values reach the containers exactly as the model holds them.
 */
export function composeSubset(model: ComposeModel, appDirectory: string, options: ComposeSubsetOptions): ComposeSubset {
  const byName = new Map(model.services.map((s) => [s.name, s]));
  const missing = options.services.filter((name) => !byName.has(name));
  if (missing.length > 0) {
    throw new ComposeError(`the golden image names services that the compose project does not have: ${missing.map((m) => `"${m}"`).join(', ')}`, {
      at: model.at,
      allowed: model.services.map((s) => `"${s.name}"`).join(', ') || 'none',
      hint: 'name services of the compose project',
    });
  }
  if (options.services.length === 0) {
    throw new ComposeError('the golden image has no services', { at: model.at, hint: 'name at least one service' });
  }
  const chosen = [...new Set(options.services)].sort().map((name) => byName.get(name)!);
  return new SubsetWriter(model, chosen, appDirectory, options).write();
}

class SubsetWriter {
  private readonly files = new Map<string, AppFile>();
  private readonly directories = new Set<string>();
  private readonly inputs = new Map<string, { kind: 'env' | 'file'; name: string; usedBy: Set<string> }>();
  private readonly warnings: ComposeWarning[] = [];
  private readonly secretEnv: Record<string, string> = {};
  private readonly secretFiles: Record<string, FileContent> = {};
  private readonly envNames: Map<string, string>;
  private readonly chosenNames: Set<string>;

  constructor(
    private readonly model: ComposeModel,
    private readonly services: readonly ComposeService[],
    private readonly appDirectory: string,
    private readonly options: ComposeSubsetOptions,
  ) {
    this.chosenNames = new Set(services.map((s) => s.name));
    this.envNames = this.planEnvNames();
  }

  public write(): ComposeSubset {
    const ports = this.planPorts();
    const doc: Record<string, unknown> = {};
    const services: Record<string, unknown> = {};
    for (const service of this.services) {
      services[service.name] = this.renderService(service, ports.filter((p) => p.service === service.name));
    }
    doc.services = services;

    const usedNetworks = new Set(this.services.flatMap((s) => s.networks.map((n) => n.name)));
    const networks = this.model.networks.filter((n) => usedNetworks.has(n.name) && !(n.name === 'default' && isPlainNetwork(n)));
    if (networks.length > 0) {
      doc.networks = Object.fromEntries(networks.map((n) => [n.name, compact({
        driver: n.driver,
        internal: n.internal || undefined,
        external: n.external || undefined,
        enable_ipv6: n.enableIpv6 || undefined,
        ipam: n.subnets.length > 0 ? { config: n.subnets.map((subnet) => ({ subnet })) } : undefined,
        labels: nonEmpty(n.labels),
      })]));
    }

    const usedVolumes = new Set(this.services.flatMap((s) => s.volumes.filter((v) => v.type === 'volume' && v.source).map((v) => v.source!)));
    const volumes = this.model.volumes.filter((v) => usedVolumes.has(v.name));
    if (volumes.length > 0) {
      doc.volumes = Object.fromEntries(volumes.map((v) => [v.name, compact({
        external: v.external || undefined,
        name: v.externalName,
        driver: v.driver,
        driver_opts: nonEmpty(v.driverOpts),
        labels: nonEmpty(v.labels),
      })]));
    }

    const usedSecrets = new Set(this.services.flatMap((s) => s.secrets.map((r) => r.source)));
    const secrets = this.model.secrets.filter((s) => usedSecrets.has(s.name));
    if (secrets.length > 0) {
      doc.secrets = Object.fromEntries(secrets.map((s) => [s.name, this.renderSecret(s)]));
    }
    const usedConfigs = new Set(this.services.flatMap((s) => s.configs.map((r) => r.source)));
    const configs = this.model.configs.filter((c) => usedConfigs.has(c.name));
    if (configs.length > 0) {
      doc.configs = Object.fromEntries(configs.map((c) => [c.name, this.renderConfig(c)]));
    }

    const header = [
      `# The compose project "${this.model.name}" as it runs in its golden VM image (generated by cdk8s-compose from`,
      `# ${this.model.files.join(', ')}; services ${this.services.map((s) => s.name).join(', ')}).`,
      '# Secret values are not here: they are read from .env and secrets/ in this folder, which the operator supplies.',
    ];
    const composeFile = `${header.join('\n')}\n${toYaml11(this.escapeDollars(doc, ''))}`;
    return {
      composeFile,
      files: [...this.files.values()].sort((a, b) => compare(a.path, b.path)),
      directories: [...this.directories].sort(compare),
      operatorInputs: [...this.inputs.values()]
        .map((i) => ({ kind: i.kind, name: i.name, usedBy: [...i.usedBy].sort(compare) }))
        .sort((a, b) => compare(`${a.kind}:${a.name}`, `${b.kind}:${b.name}`)),
      images: [...new Set(this.services.map((s) => s.image))].sort(compare),
      ports,
      networks: [...new Set(this.services.filter((s) => !s.networkMode).flatMap((s) => s.networks.map((n) => n.name)))].sort(compare),
      warnings: this.warnings,
      secretEnv: this.secretEnv,
      secretFiles: this.secretFiles,
    };
  }

  /** `.env` names for secret values: the variable's own name, or `<SERVICE>_<NAME>` when services disagree on it. */
  private planEnvNames(): Map<string, string> {
    const values = new Map<string, Set<string>>();
    for (const service of this.services) {
      for (const env of service.environment) {
        if (this.isSecretEnv(env, service)) {
          values.set(env.name, (values.get(env.name) ?? new Set()).add(env.value));
        }
      }
    }
    const names = new Map<string, string>();
    for (const service of this.services) {
      for (const env of service.environment) {
        if (this.isSecretEnv(env, service)) {
          const shared = values.get(env.name)!.size === 1;
          names.set(`${service.name}\0${env.name}`, shared ? env.name : `${envPrefix(service.name)}_${env.name}`);
        }
      }
    }
    return names;
  }

  private isSecretEnv(env: EnvVar, service: ComposeService): boolean {
    return this.options.isSensitive(env, service) || this.options.containsSecret(env.value);
  }

  private planPorts(): VmPublishedPort[] {
    const ports: VmPublishedPort[] = [];
    const taken = new Map<string, string>();
    const claim = (service: ComposeService, port: Omit<VmPublishedPort, 'service'>, path: string) => {
      const key = `${port.hostPort}/${port.protocol}`;
      const other = taken.get(key);
      if (other) {
        throw new ComposeError(`${other} and ${path} both need port ${key} on the VM`, {
          at: { file: service.at.file, path },
          allowed: 'one service per VM port and protocol',
          hint: 'publish one of them on another host port in the compose file, e.g. "8081:80"',
        });
      }
      taken.set(key, path);
      ports.push({ service: service.name, ...port });
    };
    for (const service of this.services) {
      if (service.networkMode === 'host') {
        // Host networking: the container's ports are the VM's ports already.
        for (const p of service.ports) {
          claim(service, { target: p.target, hostPort: p.target, protocol: p.protocol, origin: 'ports' }, p.at.path);
        }
        for (const p of service.expose) {
          claim(service, { target: p.target, hostPort: p.target, protocol: p.protocol, origin: 'expose' }, p.at.path);
        }
        continue;
      }
      for (const p of service.ports) {
        if (p.hostIp && !['0.0.0.0', '::'].includes(p.hostIp)) {
          this.warn('local-only-port', `bound to ${p.hostIp} in the VM: the cluster cannot reach it`, p.at);
          continue;
        }
        claim(service, { target: p.target, hostPort: p.published ?? p.target, protocol: p.protocol, origin: 'ports' }, p.at.path);
      }
      for (const p of service.expose) {
        if (ports.some((q) => q.service === service.name && q.target === p.target && q.protocol === p.protocol)) {
          continue;
        }
        claim(service, { target: p.target, hostPort: p.target, protocol: p.protocol, origin: 'expose' }, p.at.path);
      }
    }
    return ports.sort((a, b) => compare(a.service, b.service) || a.target - b.target || compare(a.protocol, b.protocol));
  }

  private renderService(service: ComposeService, ports: readonly VmPublishedPort[]): Record<string, unknown> {
    const hooks = (['preStart', 'postStart', 'preStop'] as const).filter((key) => (service[key] ?? []).length > 0);
    if (hooks.length > 0) {
      this.warn('vm-hooks-left-out', `the lifecycle hooks (${hooks.map((k) => k.replace(/[A-Z]/, (c) => `_${c.toLowerCase()}`)).join(', ')}) `
        + 'are not carried into the VM\'s compose file: run them from the service\'s own entrypoint there', service.at);
    }
    if (service.build) {
      this.warn('vm-image-pulled', `the VM pulls the image "${service.image}" and does not build it: push the image to a registry the VM can reach`, service.at);
    }
    const out: Record<string, unknown> = {};
    out.image = service.image;
    if (service.platform) {
      out.platform = service.platform;
    }
    if (service.containerName) {
      out.container_name = service.containerName;
    }
    if (service.hostname) {
      out.hostname = service.hostname;
    }
    if (service.entrypoint) {
      out.entrypoint = [...service.entrypoint];
    }
    if (service.command) {
      out.command = [...service.command];
    }
    if (service.workingDir) {
      out.working_dir = service.workingDir;
    }
    if (service.user) {
      out.user = service.user;
    }
    if (service.environment.length > 0) {
      out.environment = Object.fromEntries(service.environment.map((env) => [env.name, this.renderEnv(env, service)]));
    }
    const published = this.renderPorts(service, ports);
    if (published.length > 0) {
      out.ports = published;
    }
    if (service.volumes.length > 0) {
      out.volumes = service.volumes.map((v) => this.renderVolume(v, service));
    }
    const dependsOn = this.renderDependsOn(service);
    if (dependsOn) {
      out.depends_on = dependsOn;
    }
    if (service.healthcheck) {
      out.healthcheck = renderHealthcheck(service.healthcheck);
    }
    if (service.restart) {
      out.restart = service.restart;
    }
    if (service.networkMode) {
      const other = /^service:(.+)$/.exec(service.networkMode)?.[1];
      if (other && !this.chosenNames.has(other)) {
        throw new ComposeError(`network_mode "${service.networkMode}" needs service "${other}" in the same VM`, {
          at: { ...service.at, path: `${service.at.path}.network_mode` },
          allowed: 'a service that shares a network namespace runs in the same VM as the service it joins',
          hint: `add "${other}" to the golden image's services`,
        });
      }
      out.network_mode = service.networkMode;
    } else if (!(service.networks.length === 1 && service.networks[0].name === 'default' && isPlainAttachment(service.networks[0]))) {
      out.networks = Object.fromEntries(service.networks.map((n) => [n.name, compact({
        aliases: n.aliases.length > 0 ? [...n.aliases] : undefined,
        ipv4_address: n.ipv4Address,
        ipv6_address: n.ipv6Address,
      })]));
    }
    if (service.privileged) {
      out.privileged = true;
    }
    if (service.readOnly) {
      out.read_only = true;
    }
    if (service.capAdd.length > 0) {
      out.cap_add = [...service.capAdd];
    }
    if (service.capDrop.length > 0) {
      out.cap_drop = [...service.capDrop];
    }
    if (service.devices.length > 0) {
      out.devices = [...service.devices];
    }
    if (Object.keys(service.sysctls).length > 0) {
      out.sysctls = sortedRecord(service.sysctls);
    }
    if (service.ulimits.length > 0) {
      out.ulimits = Object.fromEntries(service.ulimits.map((u) => [u.name, u.soft === u.hard ? u.soft : { soft: u.soft, hard: u.hard }]));
    }
    if (service.extraHosts.length > 0) {
      out.extra_hosts = service.extraHosts.map((h) => `${h.hostname}:${h.ip}`);
    }
    if (service.stopGracePeriodSeconds !== undefined) {
      out.stop_grace_period = duration(service.stopGracePeriodSeconds);
    }
    if (service.stdinOpen) {
      out.stdin_open = true;
    }
    if (service.tty) {
      out.tty = true;
    }
    if (Object.keys(service.labels).length > 0) {
      out.labels = sortedRecord(service.labels);
    }
    if (service.secrets.length > 0) {
      out.secrets = service.secrets.map(renderFileReference);
    }
    if (service.configs.length > 0) {
      out.configs = service.configs.map(renderFileReference);
    }
    const deploy = renderDeploy(service);
    if (deploy) {
      out.deploy = deploy;
    }
    return out;
  }

  private renderEnv(env: EnvVar, service: ComposeService): string | EnvReference {
    if (!this.isSecretEnv(env, service)) {
      return env.value;
    }
    const variable = this.envNames.get(`${service.name}\0${env.name}`)!;
    this.secretEnv[variable] = env.value;
    this.addInput('env', variable, env.at.path);
    return new EnvReference(variable, this.appDirectory);
  }

  private renderPorts(service: ComposeService, ports: readonly VmPublishedPort[]): string[] {
    if (service.networkMode) {
      return [];
    }
    const out: string[] = [];
    for (const p of service.ports) {
      if (p.hostIp && !['0.0.0.0', '::'].includes(p.hostIp)) {
        const ip = p.hostIp.includes(':') ? `[${p.hostIp}]` : p.hostIp;
        out.push(`${ip}:${p.published ?? p.target}:${p.target}/${p.protocol}`);
      }
    }
    for (const p of ports) {
      out.push(`${p.hostPort}:${p.target}/${p.protocol}`);
    }
    return out;
  }

  private renderVolume(volume: VolumeMount, service: ComposeService): string | Record<string, unknown> {
    const mode = volume.readOnly ? ':ro' : '';
    switch (volume.type) {
      case 'tmpfs':
        return compact({ type: 'tmpfs', target: volume.target, tmpfs: volume.sizeBytes !== undefined ? { size: volume.sizeBytes } : undefined });
      case 'volume':
        if (volume.subpath) {
          return compact({ type: 'volume', source: volume.source, target: volume.target, read_only: volume.readOnly || undefined, volume: { subpath: volume.subpath } });
        }
        return volume.source ? `${volume.source}:${volume.target}${mode}` : volume.target;
      case 'bind':
        return `${this.placeBind(volume, service)}:${volume.target}${mode}`;
    }
  }

  /** Puts a bind mount's source in the app folder where it can; returns the source path the compose file uses. */
  private placeBind(volume: VolumeMount, service: ComposeService): string {
    const source = volume.source!;
    const kind = volume.bind?.kind ?? 'missing';
    if (kind === 'outside') {
      if (!source.startsWith('/')) {
        this.warn('vm-bind-outside', `the bind source "${source}" lies outside the project folder: provide it in the VM at the path it resolves to from ${this.appDirectory}`, volume.at);
      }
      return source;
    }
    const relative = appRelative(source, volume.at);
    if (kind === 'directory' || kind === 'missing') {
      this.directories.add(relative);
      if (kind === 'directory') {
        this.warn('vm-bind-directory', `the folder "${source}" is created empty in the image: copy its content into the bundle's app/${relative}/ before the build`, volume.at);
      }
      return `./${relative}`;
    }
    const content = volume.bind?.content;
    if (!content) {
      this.warn('vm-bind-unread', `the file "${source}" was not read (too large): copy it into the bundle's app/${relative} before the build`, volume.at);
      return `./${relative}`;
    }
    if (!content.binary && this.options.containsSecret(content.text)) {
      this.secretFiles[relative] = content;
      this.addInput('file', relative, `${service.at.path}.volumes (${volume.at.path})`);
      return `./${relative}`;
    }
    this.addFile({ path: relative, text: content.text, binary: content.binary }, volume.at.path);
    return `./${relative}`;
  }

  private renderDependsOn(service: ComposeService): Record<string, unknown> | undefined {
    const entries: Array<[string, unknown]> = [];
    for (const dep of service.dependsOn) {
      if (!this.chosenNames.has(dep.service)) {
        const awaited = this.options.awaited?.[dep.service];
        this.warn('vm-dependency-outside', awaited
          ? `"${dep.service}" runs outside the VM: it is reached through its Service, and the app's unit waits until ${awaited} accepts connections before it starts the app`
          : `"${dep.service}" runs outside the VM: it is reached through its Service, and start order is not enforced`, dep.at);
        continue;
      }
      entries.push([dep.service, compact({
        condition: dep.condition,
        required: dep.required ? undefined : false,
        restart: dep.restart ? true : undefined,
      })]);
    }
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }

  private renderSecret(secret: ComposeSecret): Record<string, unknown> {
    if (secret.source.kind === 'external') {
      this.warn('vm-external-secret', `the external secret "${secret.source.externalName}" exists only in a swarm: docker compose in the VM cannot use it`, secret.at);
      return { external: true, name: secret.source.externalName };
    }
    const path = `${SECRETS_DIR}/${fileName(secret.name, secret.at)}`;
    if (secret.source.kind !== 'outside') {
      this.secretFiles[path] = secret.source.content;
    }
    this.addInput('file', path, secret.at.path);
    return { file: `./${path}` };
  }

  private renderConfig(config: ComposeConfig): Record<string, unknown> {
    if (config.source.kind === 'external') {
      this.warn('vm-external-config', `the external config "${config.source.externalName}" exists only in a swarm: docker compose in the VM cannot use it`, config.at);
      return { external: true, name: config.source.externalName };
    }
    const path = `${CONFIGS_DIR}/${fileName(config.name, config.at)}`;
    if (config.source.kind === 'outside') {
      this.warn('vm-config-outside', `the config file "${config.source.path}" lies outside the project folder and was not read: copy it into the bundle's app/${path} before the build`, config.at);
      return { file: `./${path}` };
    }
    const content = config.source.content;
    if (!content.binary && this.options.containsSecret(content.text)) {
      this.secretFiles[path] = content;
      this.addInput('file', path, config.at.path);
    } else {
      this.addFile({ path, text: content.text, binary: content.binary }, config.at.path);
    }
    return { file: `./${path}` };
  }

  private addFile(file: AppFile, path: string): void {
    const existing = this.files.get(file.path);
    if (existing && (existing.text !== file.text || existing.binary !== file.binary)) {
      throw new ComposeError(`two different files would be written to ${file.path} in the app folder`, {
        at: { file: this.model.files[0] ?? 'compose.yaml', path },
        hint: 'rename one of them in the compose file',
      });
    }
    this.files.set(file.path, file);
  }

  /**
   * Escapes `$` as `$$` in every string, so compose does not interpolate values the model already resolved; a secret
   * inside a string (`--requirepass s3cret`, `password=…` in driver options, a label) becomes a `${VAR}` reference
   * instead, read from `.env` like the secret env values.
   */
  private escapeDollars(value: unknown, where: string): unknown {
    if (value instanceof EnvReference) {
      return value.toString();
    }
    if (typeof value === 'string') {
      return this.referenceSecrets(value, where);
    }
    if (Array.isArray(value)) {
      return value.map((item, i) => this.escapeDollars(item, `${where}[${i}]`));
    }
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.escapeDollars(v, where === '' ? k : `${where}.${k}`)]));
    }
    return value;
  }

  private referenceSecrets(text: string, where: string): string {
    const embedded = embeddedPasswords(text);
    if (embedded.length === 0 && !(this.options.secretValues?.hides(text) ?? false)) {
      return text.replace(/\$/g, '$$$$');
    }
    const secrets = [...(this.options.secretValues?.hiddenValues() ?? []), ...embedded]
      .filter((v) => v.length >= MIN_SCANNED_SECRET_LENGTH && text.includes(v))
      .sort((a, b) => b.length - a.length || compare(a, b));
    if (secrets.length === 0) {
      return text.replace(/\$/g, '$$$$');
    }
    // Split at the first occurrence of any secret, longest first, and work through the rest.
    let out = '';
    let rest = text;
    for (;;) {
      let at = -1;
      let found = '';
      for (const secret of secrets) {
        const index = rest.indexOf(secret);
        if (index >= 0 && (at < 0 || index < at)) {
          at = index;
          found = secret;
        }
      }
      if (at < 0) {
        return out + rest.replace(/\$/g, '$$$$');
      }
      out += rest.slice(0, at).replace(/\$/g, '$$$$') + new EnvReference(this.secretVariable(found, where), this.appDirectory).toString();
      rest = rest.slice(at + found.length);
    }
  }

  /** The `.env` variable of a secret value: the one that already holds it, else a new `SECRET_<n>`. */
  private secretVariable(value: string, where: string): string {
    const existing = Object.keys(this.secretEnv).sort(compare).find((name) => this.secretEnv[name] === value);
    if (existing) {
      return existing;
    }
    let n = 1;
    while (this.secretEnv[`SECRET_${n}`] !== undefined) {
      n += 1;
    }
    const variable = `SECRET_${n}`;
    this.secretEnv[variable] = value;
    this.addInput('env', variable, where);
    return variable;
  }

  private addInput(kind: 'env' | 'file', name: string, usedBy: string): void {
    const key = `${kind}:${name}`;
    const input = this.inputs.get(key) ?? { kind, name, usedBy: new Set<string>() };
    input.usedBy.add(usedBy);
    this.inputs.set(key, input);
  }

  private warn(code: string, message: string, at: { file: string; path: string; line?: number; column?: number }): void {
    this.warnings.push({ code, message, at });
  }
}

/** The path of a bind source inside the app folder: `./conf/app.ini` → `conf/app.ini`. */
function appRelative(source: string, at: VolumeMount['at']): string {
  const parts = source.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..') || source.startsWith('/') || source.startsWith('~')) {
    throw new ComposeError('a bind source inside the project folder has an unusable path', {
      at, value: source, hint: 'write the path relative to the project folder, e.g. ./conf/app.ini',
    });
  }
  const relative = parts.join('/');
  if (RESERVED_FILES.has(relative) || relative === SECRETS_DIR || relative.startsWith(`${SECRETS_DIR}/`)) {
    throw new ComposeError(`the bind source "${source}" collides with a file the golden image manages`, {
      at, allowed: `any path but ${[...RESERVED_FILES].join(', ')} and ${SECRETS_DIR}/`,
      hint: 'move the file to another folder in the project',
    });
  }
  return relative;
}

function fileName(name: string, at: ComposeSecret['at']): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) {
    throw new ComposeError('the name cannot be used as a file name in the app folder', {
      at, value: name, allowed: 'letters, digits, ".", "_" and "-"', hint: 'rename it in the compose file',
    });
  }
  return name;
}

function renderFileReference(ref: FileReference): Record<string, unknown> {
  return compact({
    source: ref.source,
    target: ref.target,
    uid: ref.uid,
    gid: ref.gid,
    mode: ref.mode,
  });
}

function renderHealthcheck(hc: Healthcheck): Record<string, unknown> {
  if (hc.disabled) {
    return { disable: true };
  }
  return compact({
    test: hc.test ? (hc.test.kind === 'exec' ? ['CMD', ...hc.test.command] : ['CMD-SHELL', hc.test.command.join(' ')]) : undefined,
    interval: hc.intervalSeconds !== undefined ? duration(hc.intervalSeconds) : undefined,
    timeout: hc.timeoutSeconds !== undefined ? duration(hc.timeoutSeconds) : undefined,
    retries: hc.retries,
    start_period: hc.startPeriodSeconds !== undefined ? duration(hc.startPeriodSeconds) : undefined,
    start_interval: hc.startIntervalSeconds !== undefined ? duration(hc.startIntervalSeconds) : undefined,
  });
}

function renderDeploy(service: ComposeService): Record<string, unknown> | undefined {
  const d = service.deploy;
  const resources = compact({ limits: renderAmounts(d.limits), reservations: renderAmounts(d.reservations) });
  const restart = d.restartPolicy
    ? compact({
      condition: d.restartPolicy.condition,
      delay: d.restartPolicy.delaySeconds !== undefined ? duration(d.restartPolicy.delaySeconds) : undefined,
      max_attempts: d.restartPolicy.maxAttempts,
      window: d.restartPolicy.windowSeconds !== undefined ? duration(d.restartPolicy.windowSeconds) : undefined,
    })
    : undefined;
  const out = compact({
    mode: d.mode,
    replicas: d.replicas,
    resources: Object.keys(resources).length > 0 ? resources : undefined,
    restart_policy: restart,
    labels: nonEmpty(d.labels),
  });
  return Object.keys(out).length > 0 ? out : undefined;
}

function renderAmounts(amounts: ResourceAmounts): Record<string, unknown> | undefined {
  const out = compact({
    cpus: amounts.cpus !== undefined ? String(amounts.cpus) : undefined,
    memory: amounts.memoryBytes !== undefined ? bytes(amounts.memoryBytes) : undefined,
    pids: amounts.pids,
    devices: amounts.devices.length > 0
      ? amounts.devices.map((dev) => compact({
        capabilities: [...dev.capabilities],
        driver: dev.driver,
        count: dev.count,
        device_ids: dev.deviceIds.length > 0 ? [...dev.deviceIds] : undefined,
        options: nonEmpty(dev.options),
      }))
      : undefined,
  });
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Compose byte units: the largest binary unit that divides exactly. */
function bytes(value: number): string {
  for (const [unit, size] of [['g', 1024 ** 3], ['m', 1024 ** 2], ['k', 1024]] as const) {
    if (value % size === 0) {
      return `${value / size}${unit}`;
    }
  }
  return `${value}b`;
}

/** Compose durations: whole seconds as `30s`, fractions as milliseconds. */
function duration(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

function envPrefix(service: string): string {
  return service.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
}

function isPlainNetwork(n: ComposeModel['networks'][number]): boolean {
  return !n.internal && !n.external && !n.driver && n.subnets.length === 0 && !n.enableIpv6 && Object.keys(n.labels).length === 0;
}

function isPlainAttachment(n: ComposeService['networks'][number]): boolean {
  return n.aliases.length === 0 && !n.ipv4Address && !n.ipv6Address;
}

function compact(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}

function nonEmpty(record: Readonly<Record<string, string>>): Record<string, string> | undefined {
  return Object.keys(record).length > 0 ? sortedRecord(record) : undefined;
}
