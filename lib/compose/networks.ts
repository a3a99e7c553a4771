// Networks: the top-level declarations, a service's `networks:` and its `extra_hosts`.
import { isIP } from 'net';
import { IPAM_CONFIG_KEYS, IPAM_KEYS, NETWORK_KEYS, SERVICE_NETWORK_KEYS } from './keys';
import { ComposeNetwork, ExtraHost, ServiceNetwork } from './model';
import { externalOf, NormalizeContext, optional, SharedContext, sorted } from './normalize-context';
import {
  asMap,
  asListOrMap,
  asSeq,
  asString,
  asStringList,
  checkKeys,
  invalid,
  isNull,
  optionalBool,
  optionalMap,
  optionalString,
} from './read';
import { YMap, YNode } from './yaml';
import { compare } from '../util/sort';

export function normalizeServiceNetworks(service: YMap, node: YNode | undefined, ctx: SharedContext): ServiceNetwork[] {
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

export function normalizeExtraHosts(node: YNode | undefined): ExtraHost[] {
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

export function normalizeNetwork(name: string, node: YNode, ctx: NormalizeContext): ComposeNetwork {
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
