// Lifecycle hooks: `pre_start` (an init container), `post_start` and `pre_stop` (commands in the container).
import { ComposeError } from './errors';
import { PRE_START_HOOK_KEYS, SERVICE_HOOK_KEYS } from './keys';
import { ComposeLocation, EnvVar, LifecycleHook, PreStartHook } from './model';
import { commandOf, nonNull, optional, SharedContext, sorted } from './normalize-context';
import {
  asMap,
  asSeq,
  asString,
  asText,
  checkKeys,
  isNull,
  optionalBool,
  optionalMap,
  optionalString,
  Warn,
} from './read';
import { childPath, YNode } from './yaml';

const HOOK_ALLOWED = 'a list of {command, user, privileged, working_dir, environment}';

export function hookList<T>(node: YNode | undefined, read: (item: YNode) => T): T[] | undefined {
  return node === undefined ? undefined : asSeq(node, { allowed: HOOK_ALLOWED }).items.map(read);
}

/** A `post_start` or `pre_stop` entry: its command runs in the container; the rest has no Kubernetes field. */
export function lifecycleHook(node: YNode, warn: Warn): LifecycleHook {
  const map = asMap(node, { allowed: HOOK_ALLOWED });
  checkKeys(map, SERVICE_HOOK_KEYS, 'a lifecycle hook', undefined);
  const command = commandOf(nonNull(map.entries.get('command')));
  if (command === undefined || command.length === 0) {
    throw new ComposeError('a lifecycle hook needs a command', { at: map.at, hint: 'add command: ["sh", "-c", "…"]' });
  }
  const unsupported = ['user', 'privileged', 'working_dir', 'environment'].filter(
    (key) => !isNull(map.entries.get(key)),
  );
  for (const key of unsupported) {
    warn('unsupported-key', `ignored key "${key}": ${SERVICE_HOOK_KEYS[key]}`, {
      ...map.entries.get(key)!.at,
      path: childPath(map.at.path, key),
    });
  }
  return { command, unsupported, at: map.at };
}

/** A `pre_start` entry: an init container of its own. */
export function preStartHook(node: YNode, ctx: SharedContext): PreStartHook {
  const map = asMap(node, {
    allowed: 'a list of {command, image, user, privileged, working_dir, environment, per_replica}',
  });
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
