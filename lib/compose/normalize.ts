import { capabilities, normalizeDevices, normalizeRestart, normalizeUlimits } from './container-options';
import { checkDependencyCycles, normalizeDependencies } from './dependencies';
import { normalizeDeploy } from './deploy';
import { labelFiles, normalizeEnvironment } from './environment';
import { ComposeError } from './errors';
import { normalizeHealthcheck } from './healthcheck';
import { hookList, lifecycleHook, preStartHook } from './hooks';
import { SERVICE_KEYS, TOP_LEVEL_KEYS } from './keys';
import { ComposeLocation, ComposeModel, ComposeService } from './model';
import { normalizeExtraHosts, normalizeNetwork, normalizeServiceNetworks } from './networks';
import { commandOf, durationOf, NormalizeContext, optional, SharedContext } from './normalize-context';
import { normalizeExpose, normalizePorts } from './ports';
import {
  asMap,
  asStringList,
  asTextMap,
  checkKeys,
  extensionsOf,
  isNull,
  optionalBool,
  optionalMap,
  optionalString,
} from './read';
import { normalizeFileObject, normalizeReferences } from './secrets-configs';
import { normalizeBuild, serviceImage, warnBuildOnly } from './service-image';
import { normalizeMounts, normalizeVolume, VolumeContext } from './volumes';
import { YMap, YNode } from './yaml';
import { compare } from '../util/sort';

const SERVICE_NAME = /^[a-zA-Z0-9._-]+$/;

/**
 * Most services one project converts. Each service becomes several objects and files (a Deployment, a Service, …),
 * so the cap bounds the time, memory and files of a conversion; 10,000 services take seconds (`npm run bench`).
 */
export const MAX_SERVICES = 10_000;

/** Turns the merged, interpolated tree of a project into the model. */
export function normalizeProject(root: YMap, ctx: NormalizeContext): ComposeModel {
  checkKeys(root, TOP_LEVEL_KEYS, 'a compose file', ctx.warn);
  const volumes = mapOf(root.entries.get('volumes'), 'volumes').map(([name, node]) => normalizeVolume(name, node, ctx));
  const declaredNetworks = mapOf(root.entries.get('networks'), 'networks').map(([name, node]) =>
    normalizeNetwork(name, node, ctx),
  );
  const secrets = mapOf(root.entries.get('secrets'), 'secrets').map(([name, node]) =>
    normalizeFileObject('secret', name, node, ctx),
  );
  const configs = mapOf(root.entries.get('configs'), 'configs').map(([name, node]) =>
    normalizeFileObject('config', name, node, ctx),
  );

  const serviceNodes = mapOf(root.entries.get('services'), 'services');
  if (serviceNodes.length > MAX_SERVICES) {
    const node = root.entries.get('services')!;
    throw new ComposeError(`the project has ${serviceNodes.length} services, more than ${MAX_SERVICES}`, {
      at: node.at,
      allowed: `at most ${MAX_SERVICES} services (includes counted)`,
      hint: 'split the project into several projects, each converted into its own namespace',
    });
  }
  const allNames = new Set(serviceNodes.map(([name]) => name));
  const { enabled, disabled, disabledAt, providers } = selectServices(serviceNodes, ctx);

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
    profileDisabled: [...disabled]
      .sort(([a], [b]) => compare(a, b))
      .map(([name, profiles]) => ({
        name,
        profiles: [...profiles].sort(),
        at: disabledAt.get(name)!,
      })),
    at: { file: ctx.files[0], path: '' },
  };
}

/** The services that run: those of an active profile (or none); the others by profile, and those a provider runs. */
interface SelectedServices {
  readonly enabled: Map<string, YMap>;
  /** Services left out by profiles, with their profiles and where they are. */
  readonly disabled: Map<string, string[]>;
  readonly disabledAt: Map<string, ComposeLocation>;
  /** Services run by a `provider:`, left out with a warning. */
  readonly providers: Set<string>;
}

/** Sorts the services into those that run and those left out by profiles or run by a provider. */
function selectServices(serviceNodes: ReadonlyArray<[string, YNode]>, ctx: NormalizeContext): SelectedServices {
  const active = new Set(ctx.profiles);
  const enabled = new Map<string, YMap>();
  const disabled = new Map<string, string[]>();
  const disabledAt = new Map<string, ComposeLocation>();
  const providers = new Set<string>();
  for (const [name, node] of serviceNodes) {
    const service = asMap(node, { allowed: 'a map of service keys such as image, ports, environment' });
    if (!SERVICE_NAME.test(name)) {
      // The name alone: quoting the service would print its environment.
      throw new ComposeError(`invalid service name "${name}"`, {
        at: service.at,
        allowed: 'letters, digits, ".", "_" and "-"',
      });
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
      ctx.warn(
        'provider-service',
        `service "${name}" is run by the provider "${type}" (provider:), which the ` +
          'converter cannot run: it is left out, and services that depend on it do not wait for it; set up what it ' +
          'provides in the cluster yourself',
        provider!.at,
      );
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
  return { enabled, disabled, disabledAt, providers };
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
    toolOutput: ctx.toolOutput,
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
    ...optional(
      'preStart',
      hookList(get('pre_start'), (item) => preStartHook(item, ctx)),
    ),
    ...optional(
      'postStart',
      hookList(get('post_start'), (item) => lifecycleHook(item, ctx.warn)),
    ),
    ...optional(
      'preStop',
      hookList(get('pre_stop'), (item) => lifecycleHook(item, ctx.warn)),
    ),
    extensions: extensionsOf(service),
    at: service.at,
  };
  return out;
}
