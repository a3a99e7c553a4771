import { ComposeError, ComposeWarning } from '../compose/errors';
import { ComposeModel, ComposeService, FileContent, VolumeMount } from '../compose/model';
import { Redactor } from '../compose/sensitive';
import { compare, sortedRecord } from '../util/sort';
import { AppFile, AppFolder } from './subset-app-folder';
import {
  compact,
  duration,
  isPlainAttachment,
  renderDeploy,
  renderFileReference,
  renderHealthcheck,
  renderNetworks,
  renderVolumes,
} from './subset-render';
import { OperatorInput, SensitiveEnvPredicate, SubsetSecrets } from './subset-secrets';
import { toYaml11 } from './yaml';
import { VmPublishedPort, planVmPorts, renderVmPorts } from './subset-ports';

export type { AppFile } from './subset-app-folder';
export type { OperatorInput, SensitiveEnvPredicate } from './subset-secrets';
export type { VmPublishedPort } from './subset-ports';
export { vmListenPort } from './subset-ports';

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
  /**
   * Keep the `${VAR}` references the compose file writes in env values, with the variables they read in `.env`.
   * @default true
   */
  readonly keepReferences?: boolean;
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

/**
 * The compose project that runs `services` of `model` inside a VM, rendered from the model:
 *
 * - only the chosen services, the networks, volumes, secrets and configs they use; `depends_on` on a service left
 *   out is dropped (the VM reaches it through its Kubernetes Service);
 * - the project keeps its `name:`;
 * - every container port is published on the VM (`expose` too) on every address, so that a Service can reach it; a
 *   port bound to a host address (`127.0.0.1:…`) listens on every address of the VM too (`vmListenPort`);
 * - env values the compose file writes with `${VAR}` references keep them, and the variables they read go into the
 *   app folder's `.env` (from a Secret), whatever their names;
 * - other secret env values become `${VAR:?…}` references to the app folder's `.env`, and secret files (compose secrets,
 *   bind-mounted files or configs that contain a secret) are expected in the app folder: the operator supplies both;
 * - bind-mounted files and config contents are written beside the compose file at the paths the compose file uses;
 * - every other `$` is escaped as `$$`, so the values reach the containers exactly as the model holds them.
 */
export function composeSubset(model: ComposeModel, appDirectory: string, options: ComposeSubsetOptions): ComposeSubset {
  const byName = new Map(model.services.map((s) => [s.name, s]));
  const missing = options.services.filter((name) => !byName.has(name));
  if (missing.length > 0) {
    throw new ComposeError(
      `the golden image names services that the compose project does not have: ${missing.map((m) => `"${m}"`).join(', ')}`,
      {
        at: model.at,
        allowed: model.services.map((s) => `"${s.name}"`).join(', ') || 'none',
        hint: 'name services of the compose project',
      },
    );
  }
  if (options.services.length === 0) {
    throw new ComposeError('the golden image has no services', { at: model.at, hint: 'name at least one service' });
  }
  const chosen = [...new Set(options.services)].sort().map((name) => byName.get(name)!);
  return new SubsetWriter(model, chosen, appDirectory, options).write();
}

/** Renders the chosen services into the VM's compose file, with the app folder and the secrets as its parts. */
class SubsetWriter {
  private readonly warnings: ComposeWarning[] = [];
  private readonly chosenNames: Set<string>;
  private readonly awaited: Readonly<Record<string, string>>;
  private readonly secrets: SubsetSecrets;
  private readonly folder: AppFolder;

  constructor(
    private readonly model: ComposeModel,
    private readonly services: readonly ComposeService[],
    appDirectory: string,
    options: ComposeSubsetOptions,
  ) {
    this.chosenNames = new Set(services.map((s) => s.name));
    this.secrets = new SubsetSecrets({
      appDirectory,
      services,
      isSensitive: options.isSensitive,
      containsSecret: options.containsSecret,
      secretValues: options.secretValues,
      variables: (options.keepReferences ?? true) ? model.variables : undefined,
    });
    this.folder = new AppFolder({
      appDirectory,
      composeFiles: model.files,
      secrets: this.secrets,
      containsSecret: options.containsSecret,
      warn: (code, message, at) => this.warn(code, message, at),
    });
    this.awaited = options.awaited ?? {};
  }

  public write(): ComposeSubset {
    const ports = planVmPorts(this.services, (code, message, at) => this.warn(code, message, at));
    // The project name of the compose host: label filters (`com.docker.compose.project=…`) and container names match.
    const doc: Record<string, unknown> = { name: this.model.name };
    const services: Record<string, unknown> = {};
    for (const service of this.services) {
      services[service.name] = this.renderService(
        service,
        ports.filter((p) => p.service === service.name),
      );
    }
    doc.services = services;
    const networks = renderNetworks(this.model, this.services);
    if (networks) {
      doc.networks = networks;
    }
    const volumes = renderVolumes(this.model, this.services);
    if (volumes) {
      doc.volumes = volumes;
    }
    const usedSecrets = new Set(this.services.flatMap((s) => s.secrets.map((r) => r.source)));
    const secrets = this.model.secrets.filter((s) => usedSecrets.has(s.name));
    if (secrets.length > 0) {
      doc.secrets = Object.fromEntries(secrets.map((s) => [s.name, this.folder.renderSecret(s)]));
    }
    const usedConfigs = new Set(this.services.flatMap((s) => s.configs.map((r) => r.source)));
    const configs = this.model.configs.filter((c) => usedConfigs.has(c.name));
    if (configs.length > 0) {
      doc.configs = Object.fromEntries(configs.map((c) => [c.name, this.folder.renderConfig(c)]));
    }

    const header = [
      `# The compose project "${this.model.name}" as it runs in its golden VM image (generated by cdk8s-compose from`,
      `# ${this.model.files.join(', ')}; services ${this.services.map((s) => s.name).join(', ')}).`,
      '# Values of ${VAR} references and secret values are not here: they are read from .env and secrets/ in this folder,',
      '# which the VM writes from its Secret at each boot (or the operator supplies).',
    ];
    const composeFile = `${header.join('\n')}\n${toYaml11(this.secrets.escapeDollars(doc, ''))}`;
    return {
      composeFile,
      files: this.folder.files(),
      directories: this.folder.directories(),
      operatorInputs: this.secrets.operatorInputs(),
      images: [...new Set(this.services.map((s) => s.image))].sort(compare),
      ports,
      networks: [
        ...new Set(this.services.filter((s) => !s.networkMode).flatMap((s) => s.networks.map((n) => n.name))),
      ].sort(compare),
      warnings: this.warnings,
      secretEnv: this.secrets.env,
      secretFiles: this.secrets.files,
    };
  }

  private renderService(service: ComposeService, ports: readonly VmPublishedPort[]): Record<string, unknown> {
    const hooks = (['preStart', 'postStart', 'preStop'] as const).filter((key) => (service[key] ?? []).length > 0);
    if (hooks.length > 0) {
      this.warn(
        'vm-hooks-left-out',
        `the lifecycle hooks (${hooks.map((k) => k.replace(/[A-Z]/, (c) => `_${c.toLowerCase()}`)).join(', ')}) ` +
          "are not carried into the VM's compose file: run them from the service's own entrypoint there",
        service.at,
      );
    }
    if (service.build) {
      this.warn(
        'vm-image-pulled',
        `the VM pulls the image "${service.image}" and does not build it: push the image to a registry the VM can reach`,
        service.at,
      );
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
      out.environment = Object.fromEntries(
        service.environment.map((env) => [env.name, this.secrets.renderEnv(env, service)]),
      );
    }
    const published = renderVmPorts(service, ports);
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
    } else if (!(
      service.networks.length === 1 &&
      service.networks[0].name === 'default' &&
      isPlainAttachment(service.networks[0])
    )) {
      out.networks = Object.fromEntries(
        service.networks.map((n) => [
          n.name,
          compact({
            aliases: n.aliases.length > 0 ? [...n.aliases] : undefined,
            ipv4_address: n.ipv4Address,
            ipv6_address: n.ipv6Address,
          }),
        ]),
      );
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
      out.ulimits = Object.fromEntries(
        service.ulimits.map((u) => [u.name, u.soft === u.hard ? u.soft : { soft: u.soft, hard: u.hard }]),
      );
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

  private renderVolume(volume: VolumeMount, service: ComposeService): string | Record<string, unknown> {
    const mode = volume.readOnly ? ':ro' : '';
    switch (volume.type) {
      case 'tmpfs':
        return compact({
          type: 'tmpfs',
          target: volume.target,
          tmpfs: volume.sizeBytes !== undefined ? { size: volume.sizeBytes } : undefined,
        });
      case 'volume':
        if (volume.subpath) {
          return compact({
            type: 'volume',
            source: volume.source,
            target: volume.target,
            read_only: volume.readOnly || undefined,
            volume: { subpath: volume.subpath },
          });
        }
        return volume.source ? `${volume.source}:${volume.target}${mode}` : volume.target;
      case 'bind':
        return `${this.folder.placeBind(volume, service)}:${volume.target}${mode}`;
    }
  }

  private renderDependsOn(service: ComposeService): Record<string, unknown> | undefined {
    const entries: Array<[string, unknown]> = [];
    for (const dep of service.dependsOn) {
      if (!this.chosenNames.has(dep.service)) {
        const awaited = this.awaited[dep.service];
        this.warn(
          'vm-dependency-outside',
          awaited
            ? `"${dep.service}" runs outside the VM: it is reached through its Service, and the app's unit waits until ${awaited} accepts connections before it starts the app`
            : `"${dep.service}" runs outside the VM: it is reached through its Service, and start order is not enforced`,
          dep.at,
        );
        continue;
      }
      entries.push([
        dep.service,
        compact({
          condition: dep.condition,
          required: dep.required ? undefined : false,
          restart: dep.restart ? true : undefined,
        }),
      ]);
    }
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }

  private warn(
    code: string,
    message: string,
    at: { file: string; path: string; line?: number; column?: number },
  ): void {
    this.warnings.push({ code, message, at });
  }
}
