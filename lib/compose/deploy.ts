// `deploy:` (replicas, mode, resources with device requests, restart policy, labels) and the legacy keys it replaces.
import { ComposeError } from './errors';
import {
  DEPLOY_KEYS,
  DEVICE_REQUEST_KEYS,
  LIMITS_KEYS,
  RESERVATIONS_KEYS,
  RESOURCES_KEYS,
  RESTART_POLICY_KEYS,
} from './keys';
import { Deploy, DeviceRequest, ResourceAmounts } from './model';
import { durationOf, nonNull, optional } from './normalize-context';
import {
  asInt,
  asListOrMap,
  asMap,
  asSeq,
  asStringList,
  asTextMap,
  checkKeys,
  invalid,
  isNull,
  optionalMap,
  optionalString,
  Warn,
} from './read';
import { parseCpus, parseSize } from './units';
import { childPath, YMap, YNode } from './yaml';

const SIZE_ALLOWED = 'bytes as a number, or a number with b, k, m or g, such as 512m or 1g';

function sizeOf(node: YNode | undefined): number | undefined {
  if (isNull(node)) {
    return undefined;
  }
  const value =
    node!.kind === 'scalar' && (typeof node!.value === 'string' || typeof node!.value === 'number')
      ? parseSize(node!.value)
      : undefined;
  if (value === undefined) {
    throw invalid(node!, 'invalid size', { allowed: SIZE_ALLOWED });
  }
  return value;
}

function cpusOf(node: YNode | undefined): number | undefined {
  if (isNull(node)) {
    return undefined;
  }
  const value =
    node!.kind === 'scalar' && (typeof node!.value === 'string' || typeof node!.value === 'number')
      ? parseCpus(node!.value)
      : undefined;
  if (value === undefined) {
    throw invalid(node!, 'invalid cpus', { allowed: 'a number of cores such as 0.5 or 2' });
  }
  return value === 0 ? undefined : value;
}

export function normalizeDeploy(service: YMap, warn: Warn): Deploy {
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
    count =
      countNode!.kind === 'scalar' && countNode!.value === 'all'
        ? 'all'
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
