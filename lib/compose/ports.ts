import { isIP } from 'net';
import { ComposeError } from './errors';
import { PORT_KEYS } from './keys';
import { ExposedPort, PortMapping, Protocol } from './model';
import { asSeq, asString, checkKeys, invalid, isNull, optionalString, Warn, wrongType } from './read';
import { YMap, YNode } from './yaml';
import { compare } from '../util/sort';

const PORT_ALLOWED =
  '"80", "8080:80", "127.0.0.1:8080:80/udp", "[::1]:8080:80", ranges such as "3000-3005" or ' +
  '"9090-9091:8080-8081", a number, or the long syntax {target, published, protocol, host_ip, mode}';
const PROTOCOLS: readonly Protocol[] = ['tcp', 'udp', 'sctp'];
/** Most ports one service may expand to, so a hostile file cannot ask for millions of items. */
export const MAX_PORTS_PER_SERVICE = 10_000;
/** Most ports all services together may expand to (`ports` and `expose`). */
export const MAX_PORTS_PER_PROJECT = 20_000;

interface Range {
  readonly start: number;
  readonly end: number;
}

function parseRange(text: string, node: YNode, what: string): Range {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  const start = match ? Number(match[1]) : NaN;
  const end = match && match[2] !== undefined ? Number(match[2]) : start;
  if (!match || start < 1 || end > 65535 || end < start) {
    throw new ComposeError(`invalid ${what} "${text}"`, {
      at: node.at,
      value: portValue(node),
      allowed: `a port number 1-65535 or a range such as 3000-3005; the whole entry: ${PORT_ALLOWED}`,
      hint: 'write the port as a number, for example "8080:80"',
    });
  }
  return { start, end };
}

function portValue(node: YNode): unknown {
  return node.kind === 'scalar' ? (node.written ?? node.value) : undefined;
}

function parseProtocol(text: string, node: YNode): Protocol {
  const protocol = text.toLowerCase() as Protocol;
  if (!PROTOCOLS.includes(protocol)) {
    throw new ComposeError(`invalid protocol "${text}"`, {
      at: node.at,
      value: portValue(node),
      allowed: 'tcp, udp or sctp',
      hint: 'write the protocol after a slash, for example "53:53/udp"',
    });
  }
  return protocol;
}

function parseHostIp(text: string, node: YNode): string | undefined {
  const ip = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (ip === '') {
    return undefined;
  }
  if (isIP(ip) === 0) {
    throw new ComposeError(`invalid host IP "${text}"`, {
      at: node.at,
      value: portValue(node),
      allowed: 'an IPv4 address such as 127.0.0.1, or an IPv6 address in brackets such as [::1]',
      hint: 'write the host IP before the host port, for example "127.0.0.1:8080:80"',
    });
  }
  return ip;
}

/** Pairs host and container ranges into mappings, as `docker run -p` does. */
function expand(
  node: YNode,
  container: Range,
  host: Range | undefined,
  protocol: Protocol,
  hostIp: string | undefined,
  extra: Pick<PortMapping, 'mode' | 'name' | 'appProtocol'>,
  warn: Warn,
): PortMapping[] {
  const count = container.end - container.start + 1;
  const hostStart = host?.start;
  if (host && host.end - host.start + 1 !== count) {
    if (count !== 1) {
      throw new ComposeError('the host and container port ranges have different lengths', {
        at: node.at,
        value: portValue(node),
        allowed: 'ranges of the same length, such as "9090-9091:8080-8081"',
        hint: 'make both ranges cover the same number of ports',
      });
    }
    warn(
      'host-port-range',
      `a host port range for one container port is published on its first port ${host.start}`,
      node.at,
    );
  }
  const out: PortMapping[] = [];
  for (let i = 0; i < count; i += 1) {
    out.push({
      target: container.start + i,
      ...(hostStart !== undefined ? { published: hostStart + i } : {}),
      protocol,
      ...(hostIp !== undefined ? { hostIp } : {}),
      ...extra,
      at: node.at,
    });
  }
  return out;
}

/** One `ports` entry, short or long syntax, expanded into one mapping per port. */
export function parsePort(node: YNode, warn: Warn): PortMapping[] {
  if (node.kind === 'scalar' && typeof node.value === 'number') {
    return expand(
      node,
      parseRange(String(node.value), node, 'container port'),
      undefined,
      'tcp',
      undefined,
      { mode: 'ingress' },
      warn,
    );
  }
  if (node.kind === 'scalar' && typeof node.value === 'string') {
    let spec = node.value.trim();
    let protocol: Protocol = 'tcp';
    const slash = spec.lastIndexOf('/');
    if (slash >= 0) {
      protocol = parseProtocol(spec.slice(slash + 1), node);
      spec = spec.slice(0, slash);
    }
    const parts = spec.split(':');
    const n = parts.length;
    const container = parseRange(parts[n - 1], node, 'container port');
    const hostText = n >= 2 ? parts[n - 2] : '';
    const host = hostText === '' ? undefined : parseRange(hostText, node, 'host port');
    const hostIp = n >= 3 ? parseHostIp(parts.slice(0, n - 2).join(':'), node) : undefined;
    return expand(node, container, host, protocol, hostIp, { mode: 'ingress' }, warn);
  }
  if (node.kind === 'map') {
    return parseLongPort(node, warn);
  }
  throw wrongType(node, 'a port', { allowed: PORT_ALLOWED });
}

function parseLongPort(map: YMap, warn: Warn): PortMapping[] {
  checkKeys(map, PORT_KEYS, 'a port', warn);
  const targetNode = map.entries.get('target');
  if (isNull(targetNode)) {
    throw new ComposeError('a long-syntax port needs a target', {
      at: map.at,
      allowed: PORT_ALLOWED,
      hint: 'add target: <container port>',
    });
  }
  const target = parseRange(asString(targetNode as YNode), targetNode as YNode, 'container port');
  const publishedNode = map.entries.get('published');
  const publishedText = optionalString(publishedNode);
  const published =
    publishedText === undefined || publishedText === ''
      ? undefined
      : parseRange(publishedText, publishedNode as YNode, 'published port');
  const protocolNode = map.entries.get('protocol');
  const protocol = isNull(protocolNode) ? 'tcp' : parseProtocol(asString(protocolNode as YNode), protocolNode as YNode);
  const hostIpNode = map.entries.get('host_ip');
  const hostIp = isNull(hostIpNode) ? undefined : parseHostIp(asString(hostIpNode as YNode), hostIpNode as YNode);
  const modeNode = map.entries.get('mode');
  const mode = optionalString(modeNode) ?? 'ingress';
  if (mode !== 'ingress' && mode !== 'host') {
    throw invalid(modeNode as YNode, 'invalid port mode', { allowed: 'ingress or host' });
  }
  const name = optionalString(map.entries.get('name'));
  const appProtocol = optionalString(map.entries.get('app_protocol'));
  return expand(
    map,
    target,
    published,
    protocol,
    hostIp,
    {
      mode,
      ...(name !== undefined ? { name } : {}),
      ...(appProtocol !== undefined ? { appProtocol } : {}),
    },
    warn,
  );
}

/** One `expose` entry: `3000`, `"3000"`, `"3000-3005"` or `"3000/udp"`. */
export function parseExpose(node: YNode): ExposedPort[] {
  if (node.kind !== 'scalar' || (typeof node.value !== 'string' && typeof node.value !== 'number')) {
    throw wrongType(node, 'a port', { allowed: 'a port number, a range such as 3000-3005, with an optional /udp' });
  }
  let spec = String(node.value).trim();
  let protocol: Protocol = 'tcp';
  const slash = spec.lastIndexOf('/');
  if (slash >= 0) {
    protocol = parseProtocol(spec.slice(slash + 1), node);
    spec = spec.slice(0, slash);
  }
  const range = parseRange(spec, node, 'exposed port');
  const out: ExposedPort[] = [];
  for (let port = range.start; port <= range.end; port += 1) {
    out.push({ target: port, protocol, at: node.at });
  }
  return out;
}

/** Sorts and de-duplicates ports: by target, protocol, published (unpublished first), then host IP. */
export function sortPorts(ports: PortMapping[]): PortMapping[] {
  const seen = new Set<string>();
  const unique = ports.filter((port) => {
    const key = `${port.target}/${port.protocol}/${port.published ?? ''}/${port.hostIp ?? ''}`;
    if (seen.has(key)) {
      return false;
    }
    seen.add(key);
    return true;
  });
  return unique.sort(
    (a, b) =>
      a.target - b.target ||
      a.protocol.localeCompare(b.protocol) ||
      (a.published ?? 0) - (b.published ?? 0) ||
      (a.hostIp ?? '').localeCompare(b.hostIp ?? ''),
  );
}

export function asPortList(node: YNode, what: string): YNode[] {
  if (node.kind !== 'seq') {
    throw wrongType(node, 'a list', { allowed: `a list of ${what}` });
  }
  return [...node.items];
}

/** Counts expanded ports against the project's budget, so port ranges in many services cannot add up to millions. */
function countPorts(item: YNode, added: number, count: { value: number }): void {
  count.value += added;
  if (count.value > MAX_PORTS_PER_PROJECT) {
    throw invalid(item, `the services publish and expose more than ${MAX_PORTS_PER_PROJECT} ports together`, {
      hint: 'publish fewer or smaller port ranges',
    });
  }
}

export function normalizePorts(node: YNode | undefined, warn: Warn, count: { value: number }): PortMapping[] {
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

export function normalizeExpose(node: YNode | undefined, count: { value: number }): ExposedPort[] {
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
