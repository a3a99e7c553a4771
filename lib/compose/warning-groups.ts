import { ComposeWarning, formatLocation, formatWarning, printable } from './errors';

/**
 * Findings that say the same thing about several services, as one: a YAML anchor or a copied block repeats a key in
 * many services, and so would its warning (69 identical `directory-bind` lines for one file). Two findings are the
 * same when their code, message, file and key path below the service (list indices aside) are.
 */
export interface WarningGroup {
  readonly code: string;
  readonly message: string;
  /** The findings, in the order found. */
  readonly warnings: readonly ComposeWarning[];
  /** The compose services they apply to, sorted; empty for findings outside `services`. */
  readonly services: readonly string[];
}

/** `services.<name><rest>`: the service and the key path below it. */
const SERVICE_PATH = /^services\.([^.[]+)(.*)$/;

/** The findings grouped, each group where its first finding was. */
export function groupWarnings(warnings: readonly ComposeWarning[]): WarningGroup[] {
  const groups = new Map<
    string,
    { code: string; message: string; warnings: ComposeWarning[]; services: Set<string> }
  >();
  for (const warning of warnings) {
    const match = SERVICE_PATH.exec(warning.at.path);
    // A list item's index may differ between services (`volumes[3]` in one, `volumes[5]` in another).
    const key = match
      ? JSON.stringify([warning.code, warning.message, warning.at.file, match[2].replace(/\[\d+\]/g, '[]')])
      : JSON.stringify([
          warning.code,
          warning.message,
          warning.at.file,
          warning.at.path,
          warning.at.line,
          warning.at.column,
        ]);
    // One finding per service in a group: a second one of the same service (the same mount written twice) starts
    // another group, so every grouped line names each of its findings' services.
    let group = groups.get(key);
    let slot = 0;
    while (group && match && group.services.has(match[1])) {
      slot++;
      group = groups.get(`${key}#${slot}`);
    }
    if (!group) {
      group = { code: warning.code, message: warning.message, warnings: [], services: new Set<string>() };
      groups.set(slot === 0 ? key : `${key}#${slot}`, group);
    }
    group.warnings.push(warning);
    if (match) {
      group.services.add(match[1]);
    }
  }
  return [...groups.values()].map((g) => ({ ...g, services: [...g.services].sort() }));
}

/**
 * One line for a group: a single finding as `formatWarning` writes it; several as
 * `compose.yaml:52:10: services.*.image (api, worker): message`, with the line and column when they all share them
 * (an anchor), and `[*]` for list indices that differ between the services.
 */
export function formatWarningGroup(group: WarningGroup): string {
  const [first] = group.warnings;
  if (group.warnings.length === 1 || group.services.length < 2) {
    return formatWarning(first);
  }
  const rests = new Set(group.warnings.map((w) => SERVICE_PATH.exec(w.at.path)![2]));
  const rest = rests.size === 1 ? [...rests][0] : SERVICE_PATH.exec(first.at.path)![2].replace(/\[\d+\]/g, '[*]');
  const samePlace = group.warnings.every((w) => w.at.line === first.at.line && w.at.column === first.at.column);
  const where = formatLocation({
    file: first.at.file,
    path: `services.*${rest} (${group.services.join(', ')})`,
    ...(samePlace ? { line: first.at.line, column: first.at.column } : {}),
  });
  return printable(`${where}: ${group.message}`);
}
