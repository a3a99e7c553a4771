import * as path from 'path';
import { BindContext, WINDOWS_PATH, inspectBind } from './bind-sources';
import { ComposeError } from './errors';
import { SERVICE_VOLUME_KEYS, SERVICE_VOLUME_TMPFS_KEYS, SERVICE_VOLUME_VOLUME_KEYS, VOLUME_KEYS } from './keys';
import { ComposeLocation, ComposeVolume, VolumeMount } from './model';
import { externalOf, NormalizeContext, optional, sorted } from './normalize-context';
import {
  asBool,
  asListOrMap,
  asSeq,
  asString,
  asTextMap,
  checkKeys,
  invalid,
  isNull,
  optionalMap,
  optionalString,
  wrongType,
} from './read';
import { parseSize } from './units';
import { YMap, YNode } from './yaml';

export interface VolumeContext extends BindContext {
  /** Names of the top-level volumes. */
  readonly volumeNames: ReadonlySet<string>;
}

const SHORT_ALLOWED =
  '"/container/path" (anonymous), "name:/container/path", "./host/path:/container/path", ' +
  'with an optional ":ro" or ":rw"';
const PROPAGATION = new Set(['shared', 'slave', 'private', 'rshared', 'rslave', 'rprivate']);
const CONSISTENCY = new Set(['consistent', 'cached', 'delegated']);
const OPTION_REASONS: Readonly<Record<string, string>> = {
  z: "SELinux relabelling is done by the cluster's volume plugin",
  Z: "SELinux relabelling is done by the cluster's volume plugin",
  nocopy: 'nocopy applies to named volumes only',
};

function isBindSource(source: string): boolean {
  return source.startsWith('.') || source.startsWith('/') || source.startsWith('~') || WINDOWS_PATH.test(source);
}

/**
 * A drive letter at `raw[i]`: one letter, then a path. With a forward slash it could also be a one-letter volume name
 * (`v:/data`), so it counts as a drive only where a path must follow it (`c:/src:/dst`) or where the target goes.
 */
function isDrive(raw: readonly string[], i: number, partsSoFar: number): boolean {
  const next = raw[i + 1];
  if (!/^[A-Za-z]$/.test(raw[i]) || next === undefined || !/^[\\/]/.test(next)) {
    return false;
  }
  const after = raw[i + 2];
  return next.startsWith('\\') || partsSoFar === 1 || (after !== undefined && /^(?:[\\/]|[A-Za-z]$)/.test(after));
}

/**
 * The short syntax split at its colons as compose-go splits it: a drive letter and the path after it stay one part,
 * so `C:\src:D:\dst:rw` is `C:\src`, `D:\dst` and `rw`.
 */
export function splitShort(text: string): string[] {
  const raw = text.split(':');
  const parts: string[] = [];
  for (let i = 0; i < raw.length; i += 1) {
    if (isDrive(raw, i, parts.length)) {
      parts.push(`${raw[i]}:${raw[i + 1]}`);
      i += 1;
    } else {
      parts.push(raw[i]);
    }
  }
  return parts;
}

/** One `volumes` entry of a service, short or long syntax; undefined for a mount that is reported and not converted. */
export function parseServiceVolume(node: YNode, ctx: VolumeContext): VolumeMount | undefined {
  if (node.kind === 'map') {
    return parseLongVolume(node, ctx);
  }
  if (node.kind !== 'scalar' || typeof node.value !== 'string') {
    throw wrongType(node, 'a volume', { allowed: `${SHORT_ALLOWED}, or the long syntax {type, source, target}` });
  }
  const parts = splitShort(node.value);
  if (parts.length > 3 || parts.some((part, index) => part === '' && index > 0)) {
    throw invalid(node, 'invalid volume', { allowed: SHORT_ALLOWED });
  }
  const [first, second, mode] = parts;
  const source = parts.length === 1 ? undefined : first;
  const target = containerPath(parts.length === 1 ? first : second, node);
  let readOnly = false;
  let nocopy = false;
  for (const option of (mode ?? '').split(',').filter((o) => o !== '')) {
    if (option === 'ro' || option === 'rw') {
      readOnly = option === 'ro';
    } else if (option === 'nocopy' && source !== undefined && source !== '' && !isBindSource(source)) {
      nocopy = true;
    } else if (
      option === 'z' ||
      option === 'Z' ||
      option === 'nocopy' ||
      PROPAGATION.has(option) ||
      CONSISTENCY.has(option)
    ) {
      ctx.warn(
        'unsupported-volume-option',
        `ignored volume option "${option}": ${OPTION_REASONS[option] ?? 'it has no Kubernetes equivalent'}`,
        node.at,
      );
    } else {
      throw invalid(node, `invalid volume option "${option}"`, {
        allowed: 'ro, rw, z, Z, nocopy, a propagation mode or a consistency mode',
      });
    }
  }
  if (source === undefined || source === '') {
    return { type: 'volume', target, readOnly, at: node.at };
  }
  if (isBindSource(source)) {
    return { type: 'bind', source, target, readOnly, bind: inspectBind(source, ctx, node.at), at: node.at };
  }
  checkNamedVolume(source, node, ctx);
  return { type: 'volume', source, target, readOnly, ...(nocopy ? { nocopy } : {}), at: node.at };
}

/** The container path, normalised as docker does (`/etc/app/` and `/etc//app` are `/etc/app`). */
function containerPath(target: string, node: YNode): string {
  if (WINDOWS_PATH.test(target)) {
    return target;
  }
  if (!target.startsWith('/')) {
    throw invalid(node, `the container path "${target}" is not absolute`, {
      allowed: SHORT_ALLOWED,
      hint: 'write the mount point in the container as an absolute path, for example "./data:/data"',
    });
  }
  const normal = path.posix.normalize(target);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

function checkNamedVolume(name: string, node: YNode, ctx: VolumeContext): void {
  if (!ctx.volumeNames.has(name)) {
    throw invalid(node, `the service uses volume "${name}", which is not declared under the top-level volumes`, {
      allowed:
        ctx.volumeNames.size > 0
          ? `one of ${[...ctx.volumeNames].sort().join(', ')}, or a path starting with ./ or /`
          : 'a declared volume, or a path starting with ./ or /',
      hint: `add "${name}:" under the top-level volumes, or write "./${name}" for a folder next to the compose file`,
    });
  }
}

/** Mount types of the compose specification that have no Kubernetes volume, and why. */
const UNCONVERTED_TYPES: Readonly<Record<string, string>> = {
  image:
    'an image mount needs the image volume source of Kubernetes 1.31 (copy the files in an init container instead)',
  npipe: 'a named pipe is a Windows host resource',
  cluster: 'a cluster volume is a Swarm resource',
};

function parseLongVolume(map: YMap, ctx: VolumeContext): VolumeMount | undefined {
  const typeNode = map.entries.get('type');
  const type = optionalString(typeNode);
  if (type !== undefined && UNCONVERTED_TYPES[type] !== undefined) {
    ctx.warn(
      'unsupported-volume',
      `the ${type} mount at "${optionalString(map.entries.get('target')) ?? ''}" is not ` +
        `converted: ${UNCONVERTED_TYPES[type]}`,
      map.at,
    );
    return undefined;
  }
  checkKeys(map, SERVICE_VOLUME_KEYS, 'a volume mount', ctx.warn);
  if (type !== 'volume' && type !== 'bind' && type !== 'tmpfs') {
    throw new ComposeError(
      type === undefined ? 'a long-syntax volume needs a type' : `unsupported volume type "${type}"`,
      {
        at: typeNode?.at ?? map.at,
        allowed: 'volume, bind, tmpfs, image, npipe or cluster',
        hint: 'write type: volume for a named volume, bind for a host path, tmpfs for memory',
      },
    );
  }
  const targetNode = map.entries.get('target');
  if (isNull(targetNode)) {
    throw new ComposeError('a long-syntax volume needs a target', {
      at: map.at,
      hint: 'add target: /path/in/container',
    });
  }
  const target = containerPath(asString(targetNode as YNode), targetNode as YNode);
  const readOnlyNode = map.entries.get('read_only');
  const readOnly = isNull(readOnlyNode) ? false : asBool(readOnlyNode as YNode);
  const source = optionalString(map.entries.get('source'));
  const volumeOptions = optionalMap(map.entries.get('volume'));
  if (volumeOptions) {
    checkKeys(volumeOptions, SERVICE_VOLUME_VOLUME_KEYS, 'volume options', ctx.warn);
  }
  const subpath = optionalString(volumeOptions?.entries.get('subpath'));
  const nocopyNode = volumeOptions?.entries.get('nocopy');
  const nocopy = isNull(nocopyNode) ? false : asBool(nocopyNode as YNode);
  const tmpfsOptions = optionalMap(map.entries.get('tmpfs'));
  if (tmpfsOptions) {
    checkKeys(tmpfsOptions, SERVICE_VOLUME_TMPFS_KEYS, 'tmpfs options', ctx.warn);
  }
  if (type === 'tmpfs') {
    const sizeNode = tmpfsOptions?.entries.get('size');
    const sizeBytes = isNull(sizeNode) ? undefined : sizeOf(sizeNode as YNode);
    return { type, target, readOnly, ...(sizeBytes !== undefined ? { sizeBytes } : {}), at: map.at };
  }
  if (type === 'bind') {
    if (source === undefined || source === '') {
      throw new ComposeError('a bind mount needs a source', { at: map.at, hint: 'add source: ./path/on/host' });
    }
    return { type, source, target, readOnly, bind: inspectBind(source, ctx, map.at), at: map.at };
  }
  if (source !== undefined && source !== '') {
    checkNamedVolume(source, map.entries.get('source') as YNode, ctx);
  }
  return {
    type,
    ...(source ? { source } : {}),
    target,
    readOnly,
    ...(subpath !== undefined ? { subpath } : {}),
    ...(nocopy && source ? { nocopy } : {}),
    at: map.at,
  };
}

function sizeOf(node: YNode): number {
  const size =
    node.kind === 'scalar' && (typeof node.value === 'number' || typeof node.value === 'string')
      ? parseSize(node.value)
      : undefined;
  if (size === undefined) {
    throw invalid(node, 'invalid size', { allowed: 'bytes as a number, or a number with b, k, m or g, such as 64m' });
  }
  return size;
}

/** One `tmpfs` entry: `/run` or `/run:size=64m,mode=1777`. */
export function parseTmpfs(node: YNode, ctx: VolumeContext): VolumeMount {
  if (node.kind !== 'scalar' || typeof node.value !== 'string') {
    throw wrongType(node, 'a string', { allowed: 'a container path with optional options, such as /run:size=64m' });
  }
  const colon = node.value.indexOf(':');
  const target = containerPath(colon < 0 ? node.value : node.value.slice(0, colon), node);
  let sizeBytes: number | undefined;
  for (const option of colon < 0
    ? []
    : node.value
        .slice(colon + 1)
        .split(',')
        .filter((o) => o !== '')) {
    const [key, value] = option.split('=', 2);
    if (key === 'size' && value !== undefined) {
      sizeBytes = parseSize(value);
      if (sizeBytes === undefined) {
        throw invalid(node, `invalid tmpfs size "${value}"`, { allowed: 'bytes, or a number with k, m or g' });
      }
    } else {
      ctx.warn('unsupported-volume-option', `ignored tmpfs option "${key}": only size is converted`, node.at);
    }
  }
  return { type: 'tmpfs', target, readOnly: false, ...(sizeBytes !== undefined ? { sizeBytes } : {}), at: node.at };
}

export function normalizeMounts(
  volumes: YNode | undefined,
  tmpfs: YNode | undefined,
  outer: VolumeContext,
): VolumeMount[] {
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

export function normalizeVolume(name: string, node: YNode, ctx: NormalizeContext): ComposeVolume {
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
