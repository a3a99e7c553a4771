import { ComposeWarning, formatLocation, formatWarning, printable } from './errors';

/**
 * Findings that say the same thing about several services, as one: a YAML anchor or a copied block repeats a key in
 * many services, and so would its warning (69 identical `directory-bind` lines for one file). Two findings are the
 * same when their code, message, file and key path below the service are.
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
  const groups = new Map<string, { code: string; message: string; warnings: ComposeWarning[]; services: Set<string> }>();
  for (const warning of warnings) {
    const match = SERVICE_PATH.exec(warning.at.path);
    const key = match
      ? JSON.stringify([warning.code, warning.message, warning.at.file, match[2]])
      : JSON.stringify([warning.code, warning.message, warning.at.file, warning.at.path, warning.at.line, warning.at.column]);
    const group = groups.get(key) ?? { code: warning.code, message: warning.message, warnings: [], services: new Set<string>() };
    groups.set(key, group);
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
 * (an anchor).
 */
export function formatWarningGroup(group: WarningGroup): string {
  const [first] = group.warnings;
  if (group.warnings.length === 1 || group.services.length < 2) {
    return formatWarning(first);
  }
  const rest = SERVICE_PATH.exec(first.at.path)![2];
  const samePlace = group.warnings.every((w) => w.at.line === first.at.line && w.at.column === first.at.column);
  const where = formatLocation({
    file: first.at.file,
    path: `services.*${rest} (${group.services.join(', ')})`,
    ...(samePlace ? { line: first.at.line, column: first.at.column } : {}),
  });
  return printable(`${where}: ${group.message}`);
}
