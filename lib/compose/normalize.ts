import * as path from 'path';
import { isIP } from 'net';
import { ENV_NAME, parseDotenv } from './dotenv';
import { ComposeError, quoteValue } from './errors';
import { contentOf, MAX_CONTENT_BYTES, readContent, readProjectFile, resolveInProject, statPath, textOf } from './files';
import { VariableLookup } from './interpolate';
import {
  BUILD_KEYS, CONFIG_KEYS, DEPENDS_ON_KEYS, DEPLOY_KEYS, DEVICE_REQUEST_KEYS, ENV_FILE_KEYS, EXTERNAL_KEYS,
  FILE_REFERENCE_KEYS, HEALTHCHECK_KEYS, IPAM_CONFIG_KEYS, IPAM_KEYS, LIMITS_KEYS, NETWORK_KEYS, PRE_START_HOOK_KEYS,
  RESERVATIONS_KEYS, RESOURCES_KEYS, RESTART_POLICY_KEYS, SECRET_KEYS, SERVICE_HOOK_KEYS, SERVICE_KEYS,
  SERVICE_NETWORK_KEYS, TOP_LEVEL_KEYS, ULIMIT_KEYS, VOLUME_KEYS,
} from './keys';
import {
  ComposeConfig, ComposeLocation, ComposeModel, ComposeNetwork, ComposeSecret, ComposeService, ComposeVolume,
  Dependency, DependencyCondition, Deploy, DeviceRequest, EnvVar, ExposedPort, ExtraHost, FileReference, FileSource,
  Healthcheck, LifecycleHook, PortMapping, PreStartHook, ResourceAmounts, RestartPolicy, ServiceNetwork, Ulimit,
  VolumeMount,
} from './model';
import { MAX_PORTS_PER_PROJECT, MAX_PORTS_PER_SERVICE, parseExpose, parsePort, sortPorts } from './ports';
import {
  asBool, asInt, asListOrMap, asMap, asSeq, asString, asStringList, asText, asTextMap, checkKeys, extensionsOf, invalid, isNull,
  optionalBool, optionalMap, optionalString, Warn, wrongType,
} from './read';
import { shellSplit } from './shell-split';
import { parseCpus, parseDuration, parseSize } from './units';
import { parseServiceVolume, parseTmpfs, VolumeContext } from './volumes';
import { childPath, YMap, YNode } from './yaml';
import { isUnpinnedImage } from './image';
import { compare } from '../util/sort';

/** What the normaliser needs from the loader. */
export interface NormalizeContext {
  /** Absolute project folder; used to read files, never written into the model. */
  readonly projectDir: string;
  readonly projectName: string;
  /** The compose files as the user named them, in merge order. */
  readonly files: readonly string[];
  /** The interpolation environment (shell over env files): for `environment` entries without a value. */
  readonly lookup: VariableLookup;
  readonly images: Readonly<Record<string, string>>;
  /** `HOST[/PATH]` before the references of images built from source (`--registry`). */
  readonly registry?: string;
  readonly profiles: readonly string[];
  readonly allowOutsideProject: boolean;
  readonly warn: Warn;
}

const SERVICE_NAME = /^[a-zA-Z0-9._-]+$/;
const MAX_DURATION_TEXT = 'a duration such as 10s, 1m30s or 500ms';
const CONDITIONS: readonly DependencyCondition[] = ['service_started', 'service_healthy', 'service_completed_successfully'];
const RESTARTS: readonly RestartPolicy[] = ['no', 'always', 'on-failure', 'unless-stopped'];
const IMAGE_REFERENCE = new RegExp(
  '^(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*'
  + '(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*'
  + '(?::[\\w][\\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$',
);

/** Turns the merged, interpolated tree of a project into the model. */
export function normalizeProject(root: YMap, ctx: NormalizeContext): ComposeModel {
  checkKeys(root, TOP_LEVEL_KEYS, 'a compose file', ctx.warn);
  const volumes = mapOf(root.entries.get('volumes'), 'volumes').map(([name, node]) => normalizeVolume(name, node, ctx));
  const declaredNetworks = mapOf(root.entries.get('networks'), 'networks')
    .map(([name, node]) => normalizeNetwork(name, node, ctx));
  const secrets = mapOf(root.entries.get('secrets'), 'secrets').map(([name, node]) => normalizeFileObject('secret', name, node, ctx));
  const configs = mapOf(root.entries.get('configs'), 'configs').map(([name, node]) => normalizeFileObject('config', name, node, ctx));

  const serviceNodes = mapOf(root.entries.get('services'), 'services');
  const allNames = new Set(serviceNodes.map(([name]) => name));
  const active = new Set(ctx.profiles);
  const enabled = new Map<string, YMap>();
  const disabled = new Map<string, string[]>();
  const disabledAt = new Map<string, ComposeLocation>();
  const providers = new Set<string>();
  for (const [name, node] of serviceNodes) {
    const service = asMap(node, { allowed: 'a map of service keys such as image, ports, environment' });
    if (!SERVICE_NAME.test(name)) {
      // The name alone: quoting the service would print its environment.
      throw new ComposeError(`invalid service name "${name}"`, { at: service.at, allowed: 'letters, digits, ".", "_" and "-"' });
    }
    const profilesNode = service.entries.get('profiles');
    const profiles = isNull(profilesNode) ? [] : asStringList(profilesNode as YNode);
    const provider = service.entries.get('provider');
    if (!isNull(provider)) {
      checkKeys(service, SERVICE_KEYS, 'a service', undefined);
      const type = optionalString(optionalMap(provider, { allowed: '{type, options}' })?.entries.get('type'));
      if (type === undefined) {
        throw new ComposeError(`the provider of service "${name}" has no type`, {
          at: provider!.at,
          hint: 'name the provider with type:, for example type: model',
        });
      }
      ctx.warn('provider-service', `service "${name}" is run by the provider "${type}" (provider:), which the `
        + 'converter cannot run: it is left out, and services that depend on it do not wait for it; set up what it '
        + 'provides in the cluster yourself', provider!.at);
      providers.add(name);
      continue;
    }
    if (profiles.length === 0 || active.has('*') || profiles.some((profile) => active.has(profile))) {
      enabled.set(name, service);
    } else {
      checkKeys(service, SERVICE_KEYS, 'a service', undefined);
      disabled.set(name, profiles);
      disabledAt.set(name, service.at);
    }
  }

  const shared: SharedContext = {
    ...ctx,
    volumeNames: new Set(volumes.map((v) => v.name)),
    networkNames: new Set(declaredNetworks.map((n) => n.name)),
    secretNames: new Set(secrets.map((s) => s.name)),
    configNames: new Set(configs.map((c) => c.name)),
    enabled: new Set(enabled.keys()),
    allNames,
    disabled,
    providers,
    portCount: { value: 0 },
  };
  warnBuildOnly(enabled, ctx);
  const services = [...enabled].map(([name, node]) => normalizeService(name, node, shared));
  checkDependencyCycles(byName([...services]));

  const networks = [...declaredNetworks];
  if (!shared.networkNames.has('default') && services.some((s) => s.networks.some((n) => n.name === 'default'))) {
    networks.push({
      name: 'default',
      internal: false,
      external: false,
      subnets: [],
      enableIpv6: false,
      labels: {},
      at: { file: ctx.files[0], path: 'networks.default' },
    });
  }

  return {
    name: ctx.projectName,
    files: [...ctx.files],
    services: byName(services),
    volumes: byName(volumes),
    networks: byName(networks),
    secrets: byName(secrets),
    configs: byName(configs),
    extensions: extensionsOf(root),
    profileDisabled: [...disabled].sort(([a], [b]) => compare(a, b)).map(([name, profiles]) => ({
      name, profiles: [...profiles].sort(), at: disabledAt.get(name)!,
    })),
    at: { file: ctx.files[0], path: '' },
  };
}

interface SharedContext extends NormalizeContext {
  readonly volumeNames: ReadonlySet<string>;
  readonly networkNames: ReadonlySet<string>;
  readonly secretNames: ReadonlySet<string>;
  readonly configNames: ReadonlySet<string>;
  readonly enabled: ReadonlySet<string>;
  readonly allNames: ReadonlySet<string>;
  /** Services left out by profiles, with their profiles. */
  readonly disabled: ReadonlyMap<string, readonly string[]>;
  /** Services run by a `provider:`, left out. */
  readonly providers: ReadonlySet<string>;
  /** Ports expanded so far in all services, against {@link MAX_PORTS_PER_PROJECT}. */
  readonly portCount: { value: number };
}

/**
 * Refuses services that depend on each other in a cycle (through depends_on, links or network_mode: service:x), as
 * compose does: each would wait for the other forever.
 */
function checkDependencyCycles(services: readonly ComposeService[]): void {
  const byService = new Map(services.map((s) => [s.name, s]));
  const done = new Set<string>();
  // Depth-first without recursion: a chain of thousands of services must not overflow the stack.
  for (const root of services) {
    if (done.has(root.name)) {
      continue;
    }
    const trail = [root.name];
    const onTrail = new Set(trail);
    const next = [0];
    while (trail.length > 0) {
      const name = trail[trail.length - 1];
      const dependencies = byService.get(name)?.dependsOn ?? [];
      const index = next[next.length - 1];
      if (index >= dependencies.length) {
        done.add(name);
        onTrail.delete(name);
        trail.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = index + 1;
      const dependency = dependencies[index];
      if (onTrail.has(dependency.service)) {
        const cycle = [...trail.slice(trail.indexOf(dependency.service)), dependency.service];
        throw new ComposeError(`services depend on each other in a cycle: ${cycle.join(' → ')}`, {
          at: dependency.at,
          hint: 'remove one of these dependencies; compose refuses the cycle too',
        });
      }
      if (!done.has(dependency.service)) {
        trail.push(dependency.service);
        onTrail.add(dependency.service);
        next.push(0);
      }
    }
  }
}

function byName<T extends { readonly name: string }>(items: T[]): T[] {
  return items.sort((a, b) => compare(a.name, b.name));
}


/** The entries of an optional top-level map, sorted by name. */
function mapOf(node: YNode | undefined, what: string): Array<[string, YNode]> {
  if (isNull(node)) {
    return [];
  }
  const map = asMap(node as YNode, { allowed: `a map of ${what} by name` });
  return [...map.entries].filter(([key]) => !key.startsWith('x-')).sort(([a], [b]) => compare(a, b));
}

function sorted<T>(items: T[], key: (item: T) => string): T[] {
  return items.sort((a, b) => compare(key(a), key(b)));
}

// ---------------------------------------------------------------------------------------------------------------
// Services

function normalizeService(name: string, service: YMap, ctx: SharedContext): ComposeService {
  checkKeys(service, SERVICE_KEYS, 'a service', ctx.warn);
  const get = (key: string): YNode | undefined => {
    const node = service.entries.get(key);
    return isNull(node) ? undefined : node;
  };
  const volumeCtx: VolumeContext = {
    projectDir: ctx.projectDir,
    allowOutsideProject: ctx.allowOutsideProject,
    volumeNames: ctx.volumeNames,
    home: ctx.lookup('HOME'),
    warn: ctx.warn,
  };

  const build = normalizeBuild(name, service, get('build'), ctx);
  const image = serviceImage(name, service, get('image'), ctx);
  const networkMode = optionalString(get('network_mode'));
  if (networkMode !== undefined && get('networks')) {
    throw new ComposeError('network_mode and networks cannot be used together', {
      at: (get('networks') as YNode).at,
      hint: 'remove networks, or remove network_mode',
    });
  }
  const labels = { ...labelFiles(get('label_file'), ctx), ...asTextMap(get('labels')) };
  const restart = normalizeRestart(get('restart'), ctx.warn);

  const out: ComposeService = {
    name,
    image,
    ...(build !== undefined ? { build } : {}),
    ...optional('entrypoint', commandOf(get('entrypoint'))),
    ...optional('command', commandOf(get('command'))),
    environment: normalizeEnvironment(service, ctx),
    ports: normalizePorts(get('ports'), ctx.warn, ctx.portCount),
    expose: normalizeExpose(get('expose'), ctx.portCount),
    volumes: normalizeMounts(get('volumes'), get('tmpfs'), volumeCtx),
    dependsOn: normalizeDependencies(name, service, networkMode, ctx),
    ...optional('healthcheck', normalizeHealthcheck(get('healthcheck'), ctx.warn)),
    deploy: normalizeDeploy(service, ctx.warn),
    ...optional('restart', restart),
    ...optional('user', optionalString(get('user'))),
    ...optional('workingDir', optionalString(get('working_dir'))),
    capAdd: capabilities(get('cap_add')),
    capDrop: capabilities(get('cap_drop')),
    privileged: optionalBool(get('privileged'), false),
    readOnly: optionalBool(get('read_only'), false),
    ...optional('networkMode', networkMode),
    networks: networkMode !== undefined ? [] : normalizeServiceNetworks(service, get('networks'), ctx),
    devices: normalizeDevices(get('devices')),
    sysctls: asTextMap(get('sysctls'), { allowed: 'a map of sysctl names to values, or a list of name=value' }),
    ulimits: normalizeUlimits(get('ulimits'), ctx.warn),
    ...optional('hostname', optionalString(get('hostname'))),
    ...optional('containerName', optionalString(get('container_name'))),
    extraHosts: normalizeExtraHosts(get('extra_hosts')),
    ...optional('stopGracePeriodSeconds', durationOf(get('stop_grace_period'))),
    labels,
    secrets: normalizeReferences(get('secrets'), 'secret', ctx.secretNames),
    configs: normalizeReferences(get('configs'), 'config', ctx.configNames),
    profiles: isNull(get('profiles')) ? [] : asStringList(get('profiles') as YNode).sort(),
    stdinOpen: optionalBool(get('stdin_open'), false),
    tty: optionalBool(get('tty'), false),
    ...optional('platform', optionalString(get('platform'))),
    ...optional('preStart', hookList(get('pre_start'), (item) => preStartHook(item, ctx))),
    ...optional('postStart', hookList(get('post_start'), (item) => lifecycleHook(item, ctx.warn))),
    ...optional('preStop', hookList(get('pre_stop'), (item) => lifecycleHook(item, ctx.warn))),
    extensions: extensionsOf(service),
    at: service.at,
  };
  return out;
}

const HOOK_ALLOWED = 'a list of {command, user, privileged, working_dir, environment}';

function hookList<T>(node: YNode | undefined, read: (item: YNode) => T): T[] | undefined {
  return node === undefined ? undefined : asSeq(node, { allowed: HOOK_ALLOWED }).items.map(read);
}

/** A `post_start` or `pre_stop` entry: its command runs in the container; the rest has no Kubernetes field. */
function lifecycleHook(node: YNode, warn: Warn): LifecycleHook {
  const map = asMap(node, { allowed: HOOK_ALLOWED });
  checkKeys(map, SERVICE_HOOK_KEYS, 'a lifecycle hook', undefined);
  const command = commandOf(nonNull(map.entries.get('command')));
  if (command === undefined || command.length === 0) {
    throw new ComposeError('a lifecycle hook needs a command', { at: map.at, hint: 'add command: ["sh", "-c", "…"]' });
  }
  const unsupported = ['user', 'privileged', 'working_dir', 'environment'].filter((key) => !isNull(map.entries.get(key)));
  for (const key of unsupported) {
    warn('unsupported-key', `ignored key "${key}": ${SERVICE_HOOK_KEYS[key]}`,
      { ...map.entries.get(key)!.at, path: childPath(map.at.path, key) });
  }
  return { command, unsupported, at: map.at };
}

/** A `pre_start` entry: an init container of its own. */
function preStartHook(node: YNode, ctx: SharedContext): PreStartHook {
  const map = asMap(node, { allowed: 'a list of {command, image, user, privileged, working_dir, environment, per_replica}' });
  checkKeys(map, PRE_START_HOOK_KEYS, 'a pre_start hook', undefined);
  const envNode = map.entries.get('environment');
  const entries: Array<[string, string | undefined, ComposeLocation]> = [];
  if (envNode?.kind === 'seq') {
    for (const item of envNode.items) {
      const text = asString(item, { secret: true, allowed: 'NAME=value' });
      const eq = text.indexOf('=');
      entries.push(eq < 0 ? [text, undefined, item.at] : [text.slice(0, eq), text.slice(eq + 1), item.at]);
    }
  } else {
    const envMap = optionalMap(envNode, { allowed: 'a map of NAME: value, or a list of NAME=value' });
    for (const [name, value] of envMap?.entries ?? []) {
      entries.push([name, isNull(value) ? undefined : asText(value, { secret: true }), value.at]);
    }
  }
  const environment: EnvVar[] = [];
  for (const [name, written, at] of entries) {
    const value = written ?? ctx.lookup(name);
    if (value !== undefined) {
      environment.push({ name, value, origin: 'environment', at });
    }
  }
  return {
    ...optional('command', commandOf(nonNull(map.entries.get('command')))),
    ...optional('image', optionalString(map.entries.get('image'))),
    ...optional('user', optionalString(map.entries.get('user'))),
    privileged: optionalBool(map.entries.get('privileged'), false),
    ...optional('workingDir', optionalString(map.entries.get('working_dir'))),
    environment: sorted(environment, (v) => v.name),
    perReplica: optionalBool(map.entries.get('per_replica'), false),
    at: map.at,
  };
}

/** `{ key: value }` when the value is defined, else `{}`: the model leaves unset optional fields out. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/**
 * One warning for the services built from source that have no image: they run the image `docker compose build` tags
 * (`<project>-<service>`, under `registry` when given), which must be built and pushed where the cluster can pull it.
 */
function warnBuildOnly(enabled: ReadonlyMap<string, YMap>, ctx: NormalizeContext): void {
  const built = [...enabled].filter(([name, service]) => ctx.images[name] === undefined
    && isNull(service.entries.get('image')) && !isNull(service.entries.get('build')));
  if (built.length === 0) {
    return;
  }
  const one = built.length === 1;
  const refs = built.map(([name]) => `${name} → ${builtImageName(ctx.projectName, name, ctx.registry)}`);
  ctx.warn('build-image', `${one ? 'service' : 'services'} ${built.map(([name]) => name).join(', ')} `
    + `${one ? 'is' : 'are'} built from source without an image: ${one ? 'it runs' : 'they run'} the `
    + `${one ? 'image' : 'images'} docker compose build tags (${refs.join(', ')}); build and push `
    + `${one ? 'it' : 'them'} where the cluster can pull ${one ? 'it' : 'them'} (RUNBOOK.md and analyze give the `
    + 'commands), under your registry with --registry HOST[/PATH], or name another image with --image SERVICE=REF', built[0][1].at);
}

/** The image `docker compose build` tags for a service without `image:`: `<project>-<service>`, in lower case. */
export function builtImageName(projectName: string, service: string, registry?: string): string {
  return withRegistry(`${projectName}-${service}`.toLowerCase(), registry);
}

/** A registry host names a domain (a dot), a port (a colon) or is `localhost`, as docker reads a reference. */
function namesRegistryHost(image: string): boolean {
  const slash = image.indexOf('/');
  const first = slash < 0 ? '' : image.slice(0, slash);
  return first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost');
}

/** The reference under `registry` (`HOST[/PATH]`), unless it names a registry host of its own. */
function withRegistry(image: string, registry: string | undefined): string {
  return registry === undefined || namesRegistryHost(image) ? image : `${registry}/${image}`;
}

function serviceImage(name: string, service: YMap, node: YNode | undefined, ctx: SharedContext): string {
  const supplied = ctx.images[name];
  if (supplied !== undefined) {
    return supplied;
  }
  const build = !isNull(service.entries.get('build'));
  if (node === undefined) {
    if (build) {
      return builtImageName(ctx.projectName, name, ctx.registry);
    }
    throw new ComposeError(`service "${name}" has neither image nor build`, {
      at: service.at,
      hint: 'add image: with the container image to run, for example image: nginx:1.25',
    });
  }
  const image = asString(node, { allowed: 'an image reference such as nginx:1.25' });
  if (image === '') {
    throw invalid(node, 'the image is empty', {
      allowed: 'an image reference such as nginx:1.25',
      hint: 'set the variable the image comes from, or write the image name',
    });
  }
  if (!IMAGE_REFERENCE.test(image)) {
    ctx.warn('invalid-image', `image "${image}" is not a valid image reference; a cluster cannot pull it`, node.at);
  } else if (isUnpinnedImage(image)) {
    ctx.warn('unpinned-image', `image "${image}" is not pinned (no tag, or :latest), so each pull may run a different `
      + 'version; pin a version tag or a digest', node.at);
  }
  return build ? withRegistry(image, ctx.registry) : image;
}

function normalizeBuild(name: string, service: YMap, node: YNode | undefined, ctx: SharedContext): ComposeService['build'] {
  if (node === undefined) {
    return undefined;
  }
  const platform = optionalString(service.entries.get('platform'));
  const runsBuiltImage = ctx.images[name] === undefined;
  if (node.kind === 'scalar' && typeof node.value === 'string') {
    return { context: node.value, args: {}, platforms: platform ? [platform] : [], runsBuiltImage };
  }
  const map = asMap(node, { allowed: 'a build context path, or a map with context, dockerfile, target and args' });
  checkKeys(map, BUILD_KEYS, 'build', ctx.warn);
  const args: Record<string, string> = {};
  const argsNode = map.entries.get('args');
  if (!isNull(argsNode)) {
    const argMap = asMap(argsNode as YNode, { allowed: 'a map of build arguments, or a list of NAME=value' });
    for (const key of [...argMap.entries.keys()].sort()) {
      const value = argMap.entries.get(key) as YNode;
      const text = isNull(value) ? ctx.lookup(key) : asText(value, { secret: true });
      if (text !== undefined) {
        args[key] = text;
      }
    }
  }
  const platformsNode = map.entries.get('platforms');
  const platforms = isNull(platformsNode) ? (platform ? [platform] : []) : asStringList(platformsNode!);
  return {
    context: optionalString(map.entries.get('context')) ?? '.',
    ...optional('dockerfile', optionalString(map.entries.get('dockerfile'))),
    ...optional('target', optionalString(map.entries.get('target'))),
    args,
    platforms,
    runsBuiltImage,
  };
}

function commandOf(node: YNode | undefined): string[] | undefined {
  if (node === undefined) {
    return undefined;
  }
  if (node.kind === 'scalar' && typeof node.value === 'string') {
    const words = shellSplit(node.value);
    if (!words) {
      throw invalid(node, 'unbalanced quotes in the command', {
        allowed: 'a string split like a shell, or a list of arguments',
        hint: 'close every quote, or write the command as a list: ["sh", "-c", "..."]',
      });
    }
    return words;
  }
  if (node.kind === 'seq') {
    return node.items.map((item) => asText(item, { allowed: 'a list of arguments (strings)' }));
  }
  throw wrongType(node, 'a string or a list of strings', { allowed: 'a command string, or a list of arguments' });
}

function durationOf(node: YNode | undefined): number | undefined {
  if (node === undefined) {
    return undefined;
  }
  const seconds = node.kind === 'scalar' && typeof node.value === 'string' ? parseDuration(node.value)
    : node.kind === 'scalar' && node.value === 0 ? 0 : undefined;
  if (seconds === undefined) {
    throw invalid(node, 'invalid duration', {
      allowed: MAX_DURATION_TEXT,
      hint: 'write a number with a unit (h, m, s, ms), for example 30s',
    });
  }
  return seconds;
}

function normalizeRestart(node: YNode | undefined, warn: Warn): RestartPolicy | undefined {
  if (node === undefined) {
    return undefined;
  }
  if (node.kind === 'scalar' && node.value === false) {
    return 'no';
  }
  const text = asString(node, { allowed: RESTARTS.join(', ') });
  const match = /^on-failure:(\d+)$/.exec(text);
  if (match) {
    warn('unsupported-key', `ignored the retry count of restart "${text}": Kubernetes retries without a limit`,
      node.at);
    return 'on-failure';
  }
  if (!RESTARTS.includes(text as RestartPolicy)) {
    throw invalid(node, 'invalid restart policy', { allowed: `${RESTARTS.join(', ')} or on-failure:<retries>` });
  }
  return text as RestartPolicy;
}

function capabilities(node: YNode | undefined): string[] {
  if (node === undefined) {
    return [];
  }
  const names = asStringList(node, { allowed: 'a list of capabilities such as NET_ADMIN' })
    .map((cap) => cap.toUpperCase().replace(/^CAP_/, ''));
  return [...new Set(names)].sort();
}

// Environment -----------------------------------------------------------------------------------------------------

function normalizeEnvironment(service: YMap, ctx: SharedContext): EnvVar[] {
  const vars = new Map<string, EnvVar>();
  const envFileNode = service.entries.get('env_file');
  if (!isNull(envFileNode)) {
    const entries = envFileNode!.kind === 'scalar' ? [envFileNode!] : asSeq(envFileNode!, {
      allowed: 'a path, a list of paths, or a list of {path, required}',
    }).items;
    for (const entry of entries) {
      for (const variable of readEnvFile(entry, ctx)) {
        vars.set(variable.name, variable);
      }
    }
  }
  const envNode = service.entries.get('environment');
  if (!isNull(envNode)) {
    const map = asMap(envNode!, { allowed: 'a map of NAME: value, or a list of NAME=value' });
    for (const [name, node] of map.entries) {
      if (!ENV_NAME.test(name)) {
        // The name only: the value may be secret.
        throw new ComposeError(`invalid environment variable name ${quoteValue(name)}`, {
          at: node.at,
          allowed: 'a letter or "_", then letters, digits, "_", "." and "-" (what Kubernetes accepts)',
          hint: 'rename the variable in the compose file and in the image that reads it',
        });
      }
      if (isNull(node)) {
        const value = ctx.lookup(name);
        if (value === undefined) {
          if (!vars.has(name)) {
            ctx.warn('unset-variable', `environment variable ${name} has no value and is not set in the environment; `
              + 'it is left out', node.at);
          }
          continue;
        }
        vars.set(name, { name, value, origin: 'environment', at: node.at });
      } else {
        vars.set(name, { name, value: asText(node, { secret: true }), origin: 'environment', at: node.at });
      }
    }
  }
  return sorted([...vars.values()], (v) => v.name);
}

/** `label_file`: labels from files in the env-file format, later files winning; `labels` wins over them. */
function labelFiles(node: YNode | undefined, ctx: SharedContext): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = node === undefined ? [] : node.kind === 'scalar' ? [node] : asSeq(node, { allowed: 'a path or a list of paths' }).items;
  for (const entry of entries) {
    for (const label of readEnvFile(entry, ctx, 'label file')) {
      out[label.name] = label.value;
    }
  }
  return out;
}

function readEnvFile(entry: YNode, ctx: SharedContext, what: 'env file' | 'label file' = 'env file'): EnvVar[] {
  let written: string;
  let required = true;
  if (entry.kind === 'map') {
    checkKeys(entry, ENV_FILE_KEYS, 'an env_file entry', ctx.warn);
    const pathNode = entry.entries.get('path');
    if (isNull(pathNode)) {
      throw new ComposeError('an env_file entry needs a path', { at: entry.at, hint: 'add path: ./file.env' });
    }
    written = asString(pathNode!);
    required = optionalBool(entry.entries.get('required'), true);
    const format = optionalString(entry.entries.get('format'));
    if (format !== undefined && format !== '') {
      throw invalid(entry.entries.get('format')!, `unsupported env_file format "${format}"`, {
        allowed: 'the default compose format (leave format out)',
      });
    }
  } else {
    written = asString(entry, { allowed: 'a path, or {path, required}' });
  }
  const where = resolveInProject(ctx.projectDir, written);
  if (where.kind === 'outside' && !ctx.allowOutsideProject) {
    throw new ComposeError(`${what} "${written}" is outside the project folder and was not read`, {
      at: entry.at,
      allowed: 'a path inside the folder of the compose file',
      hint: 'move the file into the project folder, or allow it with allowOutsideProject: true '
        + '(CLI: --allow-outside-project)',
    });
  }
  const absolute = where.kind === 'inside' ? where.absolute : path.resolve(ctx.projectDir, written);
  const stat = statPath(absolute);
  if (stat.kind === 'missing') {
    if (required) {
      throw new ComposeError(`${what} "${written}" not found`, {
        at: entry.at,
        hint: `create ${written}, or mark it optional: env_file: [{path: ${written}, required: false}]`,
      });
    }
    ctx.warn('missing-env-file', `optional ${what} "${written}" not found; no variables read from it`, entry.at);
    return [];
  }
  if (stat.kind === 'directory') {
    throw new ComposeError(`${what} "${written}" is a directory`, { at: entry.at, hint: `point ${what === 'env file' ? 'env_file' : 'label_file'} at a file` });
  }
  if (stat.kind === 'loop') {
    throw new ComposeError(`${what} "${written}" is a loop of symbolic links`, { at: entry.at, hint: 'make the link point at a file' });
  }
  if (stat.kind === 'special') {
    throw new ComposeError(`${what} "${written}" is not a regular file (a FIFO, socket or device) and was not read`, {
      at: entry.at,
      hint: `point ${what === 'env file' ? 'env_file' : 'label_file'} at a regular file`,
    });
  }
  if (stat.size > MAX_CONTENT_BYTES) {
    throw new ComposeError(`${what} "${written}" is larger than 1 MiB`, { at: entry.at });
  }
  const confineTo = ctx.allowOutsideProject ? undefined : ctx.projectDir;
  const text = textOf(what, written, readProjectFile(what, written, absolute, entry.at, { confineTo }), entry.at);
  return parseDotenv(text, written, ctx.lookup)
    .filter((e) => e.value !== undefined)
    .map((e) => ({ name: e.name, value: e.value as string, origin: 'env_file' as const, at: entry.at }));
}

// Ports and volumes -----------------------------------------------------------------------------------------------

/** Counts expanded ports against the project's budget, so port ranges in many services cannot add up to millions. */
function countPorts(item: YNode, added: number, count: { value: number }): void {
  count.value += added;
  if (count.value > MAX_PORTS_PER_PROJECT) {
    throw invalid(item, `the services publish and expose more than ${MAX_PORTS_PER_PROJECT} ports together`, {
      hint: 'publish fewer or smaller port ranges',
    });
  }
}

function normalizePorts(node: YNode | undefined, warn: Warn, count: { value: number }): PortMapping[] {
  if (node === undefined) {
    return [];
  }
  const ports: PortMapping[] = [];
  for (const item of asSeq(node, { allowed: 'a list of ports such as "8080:80"' }).items) {
    const parsed = parsePort(item, warn);
    ports.push(...parsed);
    if (ports.length > MAX_PORTS_PER_SERVICE) {
      throw invalid(item, `the service publishes more than ${MAX_PORTS_PER_SERVICE} ports`, {
        hint: 'publish fewer or smaller port ranges',
      });
    }
    countPorts(item, parsed.length, count);
  }
  return sortPorts(ports);
}

function normalizeExpose(node: YNode | undefined, count: { value: number }): ExposedPort[] {
  if (node === undefined) {
    return [];
  }
  const ports: ExposedPort[] = [];
  const seen = new Set<string>();
  for (const item of asSeq(node, { allowed: 'a list of ports such as "3000" or "3000/udp"' }).items) {
    const parsed = parseExpose(item);
    for (const port of parsed) {
      const key = `${port.target}/${port.protocol}`;
      if (!seen.has(key)) {
        seen.add(key);
        ports.push(port);
      }
      if (ports.length > MAX_PORTS_PER_SERVICE) {
        throw invalid(item, `the service exposes more than ${MAX_PORTS_PER_SERVICE} ports`);
      }
    }
    countPorts(item, parsed.length, count);
  }
  return ports.sort((a, b) => a.target - b.target || compare(a.protocol, b.protocol));
}

function normalizeMounts(volumes: YNode | undefined, tmpfs: YNode | undefined, outer: VolumeContext): VolumeMount[] {
  // One warning per ignored option and service (mailcow puts :z on dozens of mounts), naming the first mount.
  const options = new Map<string, { message: string; at: ComposeLocation; count: number }>();
  const ctx: VolumeContext = {
    ...outer,
    warn: (code, message, at) => {
      if (code !== 'unsupported-volume-option') {
        outer.warn(code, message, at);
        return;
      }
      const seen = options.get(message);
      if (seen) {
        seen.count += 1;
      } else {
        options.set(message, { message, at, count: 1 });
      }
    },
  };
  const mounts: VolumeMount[] = [];
  if (volumes !== undefined) {
    for (const item of asSeq(volumes, { allowed: 'a list of volumes such as "data:/var/lib/data"' }).items) {
      const mount = parseServiceVolume(item, ctx);
      if (mount) {
        mounts.push(mount);
      }
    }
  }
  if (tmpfs !== undefined) {
    const items = tmpfs.kind === 'scalar' ? [tmpfs] : asSeq(tmpfs, { allowed: 'a path or a list of paths' }).items;
    for (const item of items) {
      mounts.push(parseTmpfs(item, ctx));
    }
  }
  for (const { message, at, count } of options.values()) {
    outer.warn('unsupported-volume-option', count > 1 ? `${message} (on ${count} mounts)` : message, at);
  }
  const byTarget = new Map<string, VolumeMount>();
  for (const mount of mounts) {
    const earlier = byTarget.get(mount.target);
    if (earlier) {
      throw new ComposeError(`two mounts use the container path "${mount.target}"`, {
        at: mount.at,
        hint: `the first one is at ${earlier.at.path}; remove one of them`,
      });
    }
    byTarget.set(mount.target, mount);
  }
  return sorted(mounts, (m) => m.target);
}

// Dependencies and networks ---------------------------------------------------------------------------------------

function normalizeDependencies(name: string, service: YMap, networkMode: string | undefined, ctx: SharedContext): Dependency[] {
  const deps = new Map<string, Dependency>();
  const check = (target: string, node: YNode, required: boolean): boolean => {
    if (ctx.enabled.has(target)) {
      return true;
    }
    if (ctx.providers.has(target)) {
      return false;
    }
    const profiles = ctx.disabled.get(target);
    if (profiles && !required) {
      ctx.warn('disabled-dependency', `optional dependency "${target}" is not enabled by the active profiles; `
        + 'it is left out', node.at);
      return false;
    }
    if (profiles) {
      throw new ComposeError(`service "${name}" depends on service "${target}", which is not enabled`, {
        at: node.at,
        allowed: `a service without profiles, or one whose profile is active (${target} has profiles: `
          + `${profiles.join(', ')})`,
        hint: `activate one of its profiles (profiles: ['${profiles[0]}'], CLI: --profile ${profiles[0]}), `
          + 'or mark the dependency required: false',
      });
    }
    if (!required) {
      ctx.warn('missing-dependency', `optional dependency "${target}" is not a service of the project; it is left out`,
        node.at);
      return false;
    }
    const known = [...ctx.allNames].filter((n) => n !== name).sort();
    throw new ComposeError(`service "${name}" depends on undefined service "${target}"`, {
      at: node.at,
      allowed: known.length > 0 ? `one of the services: ${known.join(', ')}` : 'another service of the file',
      hint: `define service "${target}", or fix the name`,
    });
  };

  const dependsOn = service.entries.get('depends_on');
  if (!isNull(dependsOn)) {
    const map = asMap(dependsOn!, { allowed: 'a list of service names, or a map of service: {condition}' });
    for (const [target, node] of map.entries) {
      const entry = optionalMap(node, { allowed: '{condition, required, restart}' });
      if (entry) {
        checkKeys(entry, DEPENDS_ON_KEYS, 'a depends_on entry', ctx.warn);
      }
      const conditionNode = entry?.entries.get('condition');
      const condition = (optionalString(conditionNode) ?? 'service_started') as DependencyCondition;
      if (!CONDITIONS.includes(condition)) {
        throw invalid(conditionNode!, 'invalid dependency condition', { allowed: CONDITIONS.join(', ') });
      }
      const required = optionalBool(entry?.entries.get('required'), true);
      const restart = optionalBool(entry?.entries.get('restart'), false);
      if (check(target, node, required)) {
        deps.set(target, { service: target, condition, required, restart, at: node.at });
      }
    }
  }
  const links = service.entries.get('links');
  if (!isNull(links)) {
    for (const item of asSeq(links!, { allowed: 'a list of service names, or service:alias' }).items) {
      const [target, alias] = asString(item).split(':', 2);
      if (alias !== undefined && alias !== target) {
        ctx.warn('unsupported-key', `ignored link alias "${alias}": reach the service by its name "${target}"`, item.at);
      }
      if (!deps.has(target) && check(target, item, true)) {
        deps.set(target, { service: target, condition: 'service_started', required: true, restart: false, at: item.at });
      }
    }
  }
  // volumes_from and ipc: service:x name another service too: compose refuses one it does not know. Neither is
  // converted (each is reported as an ignored key), so they only have to name a service of the project.
  const volumesFrom = service.entries.get('volumes_from');
  if (!isNull(volumesFrom)) {
    for (const item of asSeq(volumesFrom!, { allowed: 'a list of service names, or container:name' }).items) {
      const [target] = asString(item).split(':');
      if (target !== 'container') {
        check(target, item, true);
      }
    }
  }
  const ipc = optionalString(service.entries.get('ipc'));
  if (ipc?.startsWith('service:')) {
    check(ipc.slice('service:'.length), service.entries.get('ipc') as YNode, true);
  }
  if (networkMode?.startsWith('service:')) {
    const target = networkMode.slice('service:'.length);
    const node = service.entries.get('network_mode') as YNode;
    if (!deps.has(target) && check(target, node, true)) {
      deps.set(target, { service: target, condition: 'service_started', required: true, restart: false, at: node.at });
    }
  }
  return sorted([...deps.values()], (d) => d.service);
}

function normalizeServiceNetworks(service: YMap, node: YNode | undefined, ctx: SharedContext): ServiceNetwork[] {
  if (node === undefined) {
    return [{ name: 'default', aliases: [], at: service.at }];
  }
  const map = asMap(node, { allowed: 'a list of network names, or a map of network: {aliases, ipv4_address}' });
  const out: ServiceNetwork[] = [];
  for (const [name, value] of map.entries) {
    if (!ctx.networkNames.has(name) && name !== 'default') {
      const known = [...ctx.networkNames].sort();
      throw invalid(value, `the service uses network "${name}", which is not declared under the top-level networks`, {
        allowed: known.length > 0 ? `one of ${known.join(', ')}` : 'a declared network',
        hint: `add "${name}:" under the top-level networks`,
      });
    }
    const options = optionalMap(value, { allowed: '{aliases, ipv4_address, ipv6_address}' });
    if (options) {
      checkKeys(options, SERVICE_NETWORK_KEYS, 'a service network', ctx.warn);
    }
    const aliasesNode = options?.entries.get('aliases');
    const ipv4Node = options?.entries.get('ipv4_address');
    const ipv6Node = options?.entries.get('ipv6_address');
    const ipv4Address = optionalString(ipv4Node);
    const ipv6Address = optionalString(ipv6Node);
    if (ipv4Address !== undefined && isIP(ipv4Address) !== 4) {
      throw invalid(ipv4Node!, 'invalid IPv4 address', { allowed: 'an address such as 172.20.0.10' });
    }
    if (ipv6Address !== undefined && isIP(ipv6Address) !== 6) {
      throw invalid(ipv6Node!, 'invalid IPv6 address', { allowed: 'an address such as fd00::10' });
    }
    out.push({
      name,
      aliases: isNull(aliasesNode) ? [] : [...new Set(asStringList(aliasesNode!))].sort(),
      ...optional('ipv4Address', ipv4Address),
      ...optional('ipv6Address', ipv6Address),
      at: value.at,
    });
  }
  return sorted(out, (n) => n.name);
}

// Healthcheck and deploy ------------------------------------------------------------------------------------------

function normalizeHealthcheck(node: YNode | undefined, warn: Warn): Healthcheck | undefined {
  if (node === undefined) {
    return undefined;
  }
  const map = asMap(node, { allowed: 'a map with test, interval, timeout, retries, start_period' });
  checkKeys(map, HEALTHCHECK_KEYS, 'healthcheck', warn);
  let disabled = optionalBool(map.entries.get('disable'), false);
  let test: Healthcheck['test'];
  const testNode = map.entries.get('test');
  const allowed = '["CMD", "arg", ...], ["CMD-SHELL", "script"], ["NONE"], or a shell script string';
  if (!isNull(testNode)) {
    if (testNode!.kind === 'scalar' && typeof testNode!.value === 'string') {
      test = { kind: 'shell', command: [testNode!.value] };
    } else {
      const words = asSeq(testNode!, { allowed }).items.map((item) => asText(item, { allowed }));
      const [kind, ...rest] = words;
      if (kind === 'NONE') {
        disabled = true;
      } else if (kind === 'CMD' && rest.length > 0) {
        test = { kind: 'exec', command: rest };
      } else if (kind === 'CMD-SHELL' && rest.length > 0) {
        test = { kind: 'shell', command: [rest.join(' ')] };
      } else {
        throw invalid(testNode!, 'invalid healthcheck test', {
          allowed,
          hint: 'start the list with CMD (then the arguments) or CMD-SHELL (then one script)',
        });
      }
    }
  }
  const retriesNode = map.entries.get('retries');
  return {
    disabled,
    ...optional('test', disabled ? undefined : test),
    ...optional('intervalSeconds', durationOf(nonNull(map.entries.get('interval')))),
    ...optional('timeoutSeconds', durationOf(nonNull(map.entries.get('timeout')))),
    ...optional('retries', isNull(retriesNode) ? undefined : asInt(retriesNode!, 0, 1_000_000)),
    ...optional('startPeriodSeconds', durationOf(nonNull(map.entries.get('start_period')))),
    ...optional('startIntervalSeconds', durationOf(nonNull(map.entries.get('start_interval')))),
    at: map.at,
  };
}

function nonNull(node: YNode | undefined): YNode | undefined {
  return isNull(node) ? undefined : node;
}

const SIZE_ALLOWED = 'bytes as a number, or a number with b, k, m or g, such as 512m or 1g';

function sizeOf(node: YNode | undefined): number | undefined {
  if (isNull(node)) {
    return undefined;
  }
  const value = node!.kind === 'scalar' && (typeof node!.value === 'string' || typeof node!.value === 'number')
    ? parseSize(node!.value) : undefined;
  if (value === undefined) {
    throw invalid(node!, 'invalid size', { allowed: SIZE_ALLOWED });
  }
  return value;
}

function cpusOf(node: YNode | undefined): number | undefined {
  if (isNull(node)) {
    return undefined;
  }
  const value = node!.kind === 'scalar' && (typeof node!.value === 'string' || typeof node!.value === 'number')
    ? parseCpus(node!.value) : undefined;
  if (value === undefined) {
    throw invalid(node!, 'invalid cpus', { allowed: 'a number of cores such as 0.5 or 2' });
  }
  return value === 0 ? undefined : value;
}

function normalizeDeploy(service: YMap, warn: Warn): Deploy {
  const deployNode = service.entries.get('deploy');
  const deploy = optionalMap(deployNode, { allowed: 'a map with replicas, resources, restart_policy' });
  if (deploy) {
    checkKeys(deploy, DEPLOY_KEYS, 'deploy', warn);
  }
  const get = (key: string): YNode | undefined => nonNull(deploy?.entries.get(key));
  const resources = optionalMap(get('resources'));
  if (resources) {
    checkKeys(resources, RESOURCES_KEYS, 'deploy.resources', warn);
  }
  const limitsMap = optionalMap(resources?.entries.get('limits'));
  if (limitsMap) {
    checkKeys(limitsMap, LIMITS_KEYS, 'deploy.resources.limits', warn);
  }
  const reservationsMap = optionalMap(resources?.entries.get('reservations'));
  if (reservationsMap) {
    checkKeys(reservationsMap, RESERVATIONS_KEYS, 'deploy.resources.reservations', warn);
  }
  const legacy = (key: string): YNode | undefined => nonNull(service.entries.get(key));
  const pids = (node: YNode | undefined): number | undefined => (isNull(node) ? undefined : asInt(node!, -1, 2 ** 31));
  const limitPids = pids(limitsMap?.entries.get('pids')) ?? pids(legacy('pids_limit'));

  const limits: ResourceAmounts = {
    ...optional('cpus', cpusOf(limitsMap?.entries.get('cpus')) ?? cpusOf(legacy('cpus'))),
    ...optional('memoryBytes', sizeOf(limitsMap?.entries.get('memory')) ?? sizeOf(legacy('mem_limit'))),
    ...optional('pids', limitPids !== undefined && limitPids > 0 ? limitPids : undefined),
    devices: [],
  };
  const devices: DeviceRequest[] = [];
  const devicesNode = reservationsMap?.entries.get('devices');
  if (!isNull(devicesNode)) {
    for (const item of asSeq(devicesNode!, { allowed: 'a list of {capabilities, driver, count, device_ids}' }).items) {
      devices.push(deviceRequest(item, false, warn));
    }
  }
  const gpus = legacy('gpus');
  if (gpus) {
    if (gpus.kind === 'scalar' && gpus.value === 'all') {
      devices.push({ capabilities: ['gpu'], count: 'all', deviceIds: [], options: {}, at: gpus.at });
    } else {
      for (const item of asSeq(gpus, { allowed: '"all", or a list of {driver, count, device_ids}' }).items) {
        devices.push(deviceRequest(item, true, warn));
      }
    }
  }
  const reservations: ResourceAmounts = {
    ...optional('cpus', cpusOf(reservationsMap?.entries.get('cpus'))),
    ...optional('memoryBytes', sizeOf(reservationsMap?.entries.get('memory')) ?? sizeOf(legacy('mem_reservation'))),
    devices,
  };

  const replicasNode = get('replicas') ?? legacy('scale');
  const modeNode = get('mode');
  const mode = optionalString(modeNode);
  if (mode !== undefined && mode !== 'replicated' && mode !== 'global') {
    throw invalid(modeNode!, 'unsupported deploy mode', { allowed: 'replicated or global' });
  }
  return {
    ...optional('replicas', replicasNode ? asInt(replicasNode, 0, 10_000) : undefined),
    ...optional('mode', mode as Deploy['mode']),
    limits,
    reservations,
    ...optional('restartPolicy', restartPolicy(get('restart_policy'), warn)),
    labels: asTextMap(get('labels')),
    at: deploy?.at ?? { ...service.at, path: childPath(service.at.path, 'deploy') },
  };
}

function deviceRequest(node: YNode, gpu: boolean, warn: Warn): DeviceRequest {
  const map = asMap(node, { allowed: '{capabilities, driver, count, device_ids, options}' });
  checkKeys(map, DEVICE_REQUEST_KEYS, gpu ? 'a gpus entry' : 'a device request', warn);
  const capsNode = map.entries.get('capabilities');
  if (isNull(capsNode) && !gpu) {
    throw new ComposeError('a device request needs capabilities', {
      at: map.at,
      hint: 'add capabilities: [gpu] for a GPU',
    });
  }
  const countNode = map.entries.get('count');
  let count: number | 'all' | undefined;
  if (!isNull(countNode)) {
    count = countNode!.kind === 'scalar' && countNode!.value === 'all' ? 'all'
      : asInt(countNode!, 0, 1024, { allowed: 'a number of devices, or all' });
  }
  const idsNode = map.entries.get('device_ids');
  return {
    capabilities: isNull(capsNode) ? ['gpu'] : [...new Set(asStringList(capsNode!))].sort(),
    ...optional('driver', optionalString(map.entries.get('driver'))),
    ...optional('count', count),
    deviceIds: isNull(idsNode) ? [] : asStringList(idsNode!),
    options: asListOrMap(map.entries.get('options')),
    at: map.at,
  };
}

function restartPolicy(node: YNode | undefined, warn: Warn): Deploy['restartPolicy'] {
  if (node === undefined) {
    return undefined;
  }
  const map = asMap(node, { allowed: '{condition, delay, max_attempts, window}' });
  checkKeys(map, RESTART_POLICY_KEYS, 'deploy.restart_policy', warn);
  const conditionNode = map.entries.get('condition');
  const condition = optionalString(conditionNode) ?? 'any';
  if (condition !== 'none' && condition !== 'on-failure' && condition !== 'any') {
    throw invalid(conditionNode!, 'invalid restart condition', { allowed: 'none, on-failure or any' });
  }
  const attemptsNode = map.entries.get('max_attempts');
  return {
    condition,
    ...optional('delaySeconds', durationOf(nonNull(map.entries.get('delay')))),
    ...optional('maxAttempts', isNull(attemptsNode) ? undefined : asInt(attemptsNode!, 0, 1_000_000)),
    ...optional('windowSeconds', durationOf(nonNull(map.entries.get('window')))),
  };
}

// Small service keys ----------------------------------------------------------------------------------------------

function normalizeDevices(node: YNode | undefined): string[] {
  if (node === undefined) {
    return [];
  }
  const out: string[] = [];
  for (const item of asSeq(node, { allowed: 'a list of device mappings such as /dev/kvm:/dev/kvm' }).items) {
    if (item.kind === 'map') {
      const source = asString(item.entries.get('source') ?? item);
      const target = optionalString(item.entries.get('target')) ?? source;
      const permissions = optionalString(item.entries.get('permissions'));
      out.push([source, target, ...(permissions ? [permissions] : [])].join(':'));
    } else {
      out.push(asString(item));
    }
  }
  return out;
}

function normalizeUlimits(node: YNode | undefined, warn: Warn): Ulimit[] {
  if (node === undefined) {
    return [];
  }
  const map = asMap(node, { allowed: 'a map of ulimit names to a number or {soft, hard}' });
  const out: Ulimit[] = [];
  for (const [name, value] of map.entries) {
    if (value.kind === 'map') {
      checkKeys(value, ULIMIT_KEYS, 'a ulimit', warn);
      const soft = value.entries.get('soft');
      const hard = value.entries.get('hard');
      if (isNull(soft) || isNull(hard)) {
        throw invalid(value, `ulimit ${name} needs both soft and hard`, { allowed: 'a number, or {soft, hard}' });
      }
      out.push({ name, soft: asInt(soft!, -1, Number.MAX_SAFE_INTEGER), hard: asInt(hard!, -1, Number.MAX_SAFE_INTEGER) });
    } else {
      const limit = asInt(value, -1, Number.MAX_SAFE_INTEGER, { allowed: 'a number, or {soft, hard}' });
      out.push({ name, soft: limit, hard: limit });
    }
  }
  return sorted(out, (u) => u.name);
}

function normalizeExtraHosts(node: YNode | undefined): ExtraHost[] {
  if (node === undefined) {
    return [];
  }
  const map = asMap(node, { allowed: 'a list of host:ip, or a map of host: ip' });
  const out: ExtraHost[] = [];
  for (const [hostname, value] of map.entries) {
    if (isNull(value)) {
      throw invalid(value, `extra host "${hostname}" has no address`, { allowed: 'host:ip, host=ip, or host: ip' });
    }
    const ips = value.kind === 'seq' ? asStringList(value) : [asString(value)];
    for (const raw of ips) {
      const ip = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
      if (ip !== 'host-gateway' && isIP(ip) === 0) {
        throw invalid(value, `invalid address for extra host "${hostname}"`, {
          allowed: 'an IPv4 or IPv6 address, or host-gateway',
        });
      }
      out.push({ hostname, ip });
    }
  }
  return out.sort((a, b) => compare(a.hostname, b.hostname) || compare(a.ip, b.ip));
}

function normalizeReferences(node: YNode | undefined, kind: 'secret' | 'config', names: ReadonlySet<string>): FileReference[] {
  if (node === undefined) {
    return [];
  }
  const out: FileReference[] = [];
  for (const item of asSeq(node, { allowed: `a list of ${kind} names, or {source, target, uid, gid, mode}` }).items) {
    let source: string;
    let target: string | undefined;
    let uid: string | undefined;
    let gid: string | undefined;
    let mode: number | undefined;
    if (item.kind === 'map') {
      checkKeys(item, FILE_REFERENCE_KEYS, `a service ${kind}`, undefined);
      const sourceNode = item.entries.get('source');
      if (isNull(sourceNode)) {
        throw new ComposeError(`a long-syntax ${kind} needs a source`, { at: item.at, hint: `add source: <${kind} name>` });
      }
      source = asString(sourceNode!);
      target = optionalString(item.entries.get('target'));
      uid = optionalString(item.entries.get('uid'));
      gid = optionalString(item.entries.get('gid'));
      mode = modeOf(nonNull(item.entries.get('mode')));
    } else {
      source = asString(item);
    }
    if (!names.has(source)) {
      const known = [...names].sort();
      throw invalid(item, `the service uses ${kind} "${source}", which is not declared under the top-level ${kind}s`, {
        allowed: known.length > 0 ? `one of ${known.join(', ')}` : `a declared ${kind}`,
        hint: `add "${source}:" under the top-level ${kind}s`,
      });
    }
    const prefix = kind === 'secret' ? '/run/secrets/' : '/';
    const mountPath = target ?? source;
    out.push({
      source,
      target: mountPath.startsWith('/') ? mountPath : prefix + mountPath,
      ...optional('uid', uid),
      ...optional('gid', gid),
      ...optional('mode', mode),
      at: item.at,
    });
  }
  return sorted(out, (r) => r.source);
}

/** A file mode: `0440` written plainly reads as octal (as compose's YAML does), so does a string; `288` is decimal. */
function modeOf(node: YNode | undefined): number | undefined {
  if (node === undefined) {
    return undefined;
  }
  let mode: number | undefined;
  if (node.kind === 'scalar') {
    const text = node.plain ?? (typeof node.value === 'string' ? node.value : undefined);
    if (text !== undefined && /^0o?[0-7]+$/.test(text)) {
      mode = parseInt(text.replace(/^0o?/, '') || '0', 8);
    } else if (typeof node.value === 'string' && /^[0-7]+$/.test(node.value)) {
      mode = parseInt(node.value, 8);
    } else if (typeof node.value === 'number' && Number.isInteger(node.value)) {
      mode = node.value;
    }
  }
  if (mode === undefined || mode < 0 || mode > 0o7777) {
    throw invalid(node, 'invalid file mode', { allowed: 'an octal mode such as 0440 or "0440"' });
  }
  return mode;
}

// Top-level volumes, networks, secrets, configs -------------------------------------------------------------------

function externalOf(node: YNode | undefined, warn: Warn): { external: boolean; name?: string } {
  if (isNull(node)) {
    return { external: false };
  }
  if (node!.kind === 'map') {
    checkKeys(node!, EXTERNAL_KEYS, 'external', warn);
    return { external: true, ...optional('name', optionalString(node!.entries.get('name'))) };
  }
  return { external: asBool(node!) };
}

function normalizeVolume(name: string, node: YNode, ctx: NormalizeContext): ComposeVolume {
  const map = optionalMap(node, { allowed: 'nothing, or a map with external, name, driver, driver_opts, labels' });
  if (map) {
    checkKeys(map, VOLUME_KEYS, 'a volume', ctx.warn);
  }
  const external = externalOf(map?.entries.get('external'), ctx.warn);
  const externalName = external.name ?? optionalString(map?.entries.get('name'));
  return {
    name,
    external: external.external,
    ...optional('externalName', externalName ?? (external.external ? name : undefined)),
    ...optional('driver', optionalString(map?.entries.get('driver'))),
    driverOpts: asTextMap(map?.entries.get('driver_opts')),
    labels: asListOrMap(map?.entries.get('labels')),
    at: node.at,
  };
}

function normalizeNetwork(name: string, node: YNode, ctx: NormalizeContext): ComposeNetwork {
  const map = optionalMap(node, { allowed: 'nothing, or a map with driver, internal, external, ipam, labels' });
  if (map) {
    checkKeys(map, NETWORK_KEYS, 'a network', ctx.warn);
    const nameNode = map.entries.get('name');
    if (!isNull(nameNode) && !map.entries.has('external')) {
      ctx.warn('unsupported-key', 'ignored key "name": the network is named after its key', nameNode!.at);
    }
  }
  const subnets: string[] = [];
  const ipam = optionalMap(map?.entries.get('ipam'));
  if (ipam) {
    checkKeys(ipam, IPAM_KEYS, 'ipam', ctx.warn);
    const config = ipam.entries.get('config');
    if (!isNull(config)) {
      for (const item of asSeq(config!, { allowed: 'a list of {subnet}' }).items) {
        const entry = asMap(item, { allowed: '{subnet, gateway, ip_range}' });
        checkKeys(entry, IPAM_CONFIG_KEYS, 'an ipam config', ctx.warn);
        const subnet = optionalString(entry.entries.get('subnet'));
        if (subnet !== undefined) {
          subnets.push(subnet);
        }
      }
    }
  }
  const external = externalOf(map?.entries.get('external'), ctx.warn);
  return {
    name,
    internal: optionalBool(map?.entries.get('internal'), false),
    external: external.external,
    ...optional('driver', optionalString(map?.entries.get('driver'))),
    subnets,
    enableIpv6: optionalBool(map?.entries.get('enable_ipv6'), false),
    labels: asListOrMap(map?.entries.get('labels')),
    at: node.at,
  };
}

/** A top-level secret or config: the same shape, configs also taking inline `content`. */
function normalizeFileObject(what: 'secret' | 'config', name: string, node: YNode, ctx: NormalizeContext): ComposeSecret | ComposeConfig {
  const map = asMap(node, { allowed: what === 'secret' ? 'a map with file, environment or external' : 'a map with file, environment, content or external' });
  checkKeys(map, what === 'secret' ? SECRET_KEYS : CONFIG_KEYS, `a ${what}`, ctx.warn);
  return {
    name,
    source: fileSource(name, map, what, ctx),
    labels: asListOrMap(map.entries.get('labels')),
    at: map.at,
  };
}

function fileSource(name: string, map: YMap, kind: 'secret' | 'config', ctx: NormalizeContext): FileSource {
  const sources = ['file', 'environment', 'content', 'external'].filter((key) => {
    const value = map.entries.get(key);
    return !isNull(value) && !(key === 'external' && value!.kind === 'scalar' && value!.value === false);
  });
  const allowed = kind === 'secret' ? 'one of file, environment or external' : 'one of file, environment, content or external';
  if (sources.length !== 1) {
    throw new ComposeError(sources.length === 0 ? `${kind} "${name}" has no source` : `${kind} "${name}" has more than one source (${sources.join(', ')})`, {
      at: map.at,
      allowed,
      hint: `give the ${kind} exactly one of ${kind === 'secret' ? 'file:, environment: or external: true' : 'file:, environment:, content: or external: true'}`,
    });
  }
  const source = sources[0];
  const node = map.entries.get(source) as YNode;
  const nameNode = map.entries.get('name');
  if (source !== 'external' && !isNull(nameNode)) {
    ctx.warn('unsupported-key', `ignored key "name": the ${kind} is named after its key`, nameNode!.at);
  }
  switch (source) {
    case 'external': {
      const external = externalOf(node, ctx.warn);
      return { kind: 'external', externalName: external.name ?? optionalString(map.entries.get('name')) ?? name };
    }
    case 'content': {
      const text = asText(node, { secret: true, allowed: 'the content as a string' });
      return { kind: 'content', content: contentOf(name, Buffer.from(text, 'utf8')) };
    }
    case 'environment': {
      const variable = asString(node, { allowed: 'the name of an environment variable' });
      const value = ctx.lookup(variable);
      if (value === undefined) {
        throw invalid(node, `${kind} "${name}" comes from environment variable ${variable}, which is not set`, {
          hint: `set ${variable} in the environment or in the .env file`,
        });
      }
      return { kind: 'environment', variable, content: contentOf(name, Buffer.from(value, 'utf8')) };
    }
    default: {
      const written = asString(node, { allowed: 'a path to a file' });
      const where = resolveInProject(ctx.projectDir, written);
      if (where.kind === 'outside' && !ctx.allowOutsideProject) {
        return { kind: 'outside', path: written };
      }
      const absolute = where.kind === 'inside' ? where.absolute : path.resolve(ctx.projectDir, written);
      const stat = statPath(absolute);
      if (stat.kind === 'missing') {
        throw invalid(node, `${kind} file "${written}" not found`, {
          hint: `create ${written} next to the compose file, or fix the path`,
        });
      }
      if (stat.kind !== 'file') {
        const what = stat.kind === 'directory' ? 'a directory' : stat.kind === 'loop' ? 'a loop of symbolic links'
          : 'not a regular file (a FIFO, socket or device)';
        throw invalid(node, `${kind} file "${written}" is ${what}`, {
          hint: `point ${kind}s.${name}.file at a regular file`,
        });
      }
      if (stat.size > MAX_CONTENT_BYTES) {
        throw invalid(node, `${kind} file "${written}" is larger than 1 MiB`, {
          hint: 'Kubernetes Secrets and ConfigMaps hold at most 1 MiB',
        });
      }
      const confineTo = ctx.allowOutsideProject ? undefined : ctx.projectDir;
      return { kind: 'file', content: readContent(`${kind} file`, written, absolute, node.at, { confineTo }) };
    }
  }
}
