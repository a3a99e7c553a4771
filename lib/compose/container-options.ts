// Small container keys: `restart`, `cap_add`/`cap_drop`, `devices` and `ulimits`.
import { ULIMIT_KEYS } from './keys';
import { RestartPolicy, Ulimit } from './model';
import { sorted } from './normalize-context';
import { asInt, asMap, asSeq, asString, asStringList, checkKeys, invalid, isNull, optionalString, Warn } from './read';
import { YNode } from './yaml';

const RESTARTS: readonly RestartPolicy[] = ['no', 'always', 'on-failure', 'unless-stopped'];

export function normalizeRestart(node: YNode | undefined, warn: Warn): RestartPolicy | undefined {
  if (node === undefined) {
    return undefined;
  }
  if (node.kind === 'scalar' && node.value === false) {
    return 'no';
  }
  const text = asString(node, { allowed: RESTARTS.join(', ') });
  const match = /^on-failure:(\d+)$/.exec(text);
  if (match) {
    warn(
      'unsupported-key',
      `ignored the retry count of restart "${text}": Kubernetes retries without a limit`,
      node.at,
    );
    return 'on-failure';
  }
  if (!RESTARTS.includes(text as RestartPolicy)) {
    throw invalid(node, 'invalid restart policy', { allowed: `${RESTARTS.join(', ')} or on-failure:<retries>` });
  }
  return text as RestartPolicy;
}

export function capabilities(node: YNode | undefined): string[] {
  if (node === undefined) {
    return [];
  }
  const names = asStringList(node, { allowed: 'a list of capabilities such as NET_ADMIN' }).map((cap) =>
    cap.toUpperCase().replace(/^CAP_/, ''),
  );
  return [...new Set(names)].sort();
}

export function normalizeDevices(node: YNode | undefined): string[] {
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

export function normalizeUlimits(node: YNode | undefined, warn: Warn): Ulimit[] {
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
      out.push({
        name,
        soft: asInt(soft!, -1, Number.MAX_SAFE_INTEGER),
        hard: asInt(hard!, -1, Number.MAX_SAFE_INTEGER),
      });
    } else {
      const limit = asInt(value, -1, Number.MAX_SAFE_INTEGER, { allowed: 'a number, or {soft, hard}' });
      out.push({ name, soft: limit, hard: limit });
    }
  }
  return sorted(out, (u) => u.name);
}
