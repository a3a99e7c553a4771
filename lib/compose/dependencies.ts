// A service's dependencies (depends_on, links, network_mode: service:x), and the check for cycles among them.
import { ComposeError } from './errors';
import { DEPENDS_ON_KEYS } from './keys';
import { ComposeService, Dependency, DependencyCondition } from './model';
import { SharedContext, sorted } from './normalize-context';
import { asMap, asSeq, asString, checkKeys, invalid, isNull, optionalBool, optionalMap, optionalString } from './read';
import { YMap, YNode } from './yaml';

const CONDITIONS: readonly DependencyCondition[] = [
  'service_started',
  'service_healthy',
  'service_completed_successfully',
];

/**
 * Refuses services that depend on each other in a cycle (through depends_on, links or network_mode: service:x), as
 * compose does: each would wait for the other forever.
 */
export function checkDependencyCycles(services: readonly ComposeService[]): void {
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

/**
 * Whether service `name` waits for `target`: true when `target` runs; false, with a warning, when an optional
 * dependency is missing or left out by profiles, or when a provider runs it; an error when a required one is missing.
 */
function checkTarget(name: string, target: string, node: YNode, required: boolean, ctx: SharedContext): boolean {
  if (ctx.enabled.has(target)) {
    return true;
  }
  if (ctx.providers.has(target)) {
    return false;
  }
  const profiles = ctx.disabled.get(target);
  if (profiles && !required) {
    ctx.warn(
      'disabled-dependency',
      `optional dependency "${target}" is not enabled by the active profiles; ` + 'it is left out',
      node.at,
    );
    return false;
  }
  if (profiles) {
    throw new ComposeError(`service "${name}" depends on service "${target}", which is not enabled`, {
      at: node.at,
      allowed:
        `a service without profiles, or one whose profile is active (${target} has profiles: ` +
        `${profiles.join(', ')})`,
      hint:
        `activate one of its profiles (profiles: ['${profiles[0]}'], CLI: --profile ${profiles[0]}), ` +
        'or mark the dependency required: false',
    });
  }
  if (!required) {
    ctx.warn(
      'missing-dependency',
      `optional dependency "${target}" is not a service of the project; it is left out`,
      node.at,
    );
    return false;
  }
  const known = [...ctx.allNames].filter((n) => n !== name).sort();
  throw new ComposeError(`service "${name}" depends on undefined service "${target}"`, {
    at: node.at,
    allowed: known.length > 0 ? `one of the services: ${known.join(', ')}` : 'another service of the file',
    hint: `define service "${target}", or fix the name`,
  });
}

export function normalizeDependencies(
  name: string,
  service: YMap,
  networkMode: string | undefined,
  ctx: SharedContext,
): Dependency[] {
  const deps = new Map<string, Dependency>();
  const check = (target: string, node: YNode, required: boolean): boolean =>
    checkTarget(name, target, node, required, ctx);

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
        ctx.warn(
          'unsupported-key',
          `ignored link alias "${alias}": reach the service by its name "${target}"`,
          item.at,
        );
      }
      if (!deps.has(target) && check(target, item, true)) {
        deps.set(target, {
          service: target,
          condition: 'service_started',
          required: true,
          restart: false,
          at: item.at,
        });
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
