import { parseArgs, ParseArgsConfig } from 'util';
import type { OptionSpec } from './option-spec';
import { UsageError } from './usage-error';

/** kompose options that have no counterpart here, with what to do instead. */
export const KOMPOSE_ONLY: Readonly<Record<string, string>> = {
  'json': "kompose's --json is not supported: the manifests are YAML",
  'j': "kompose's -j (JSON output) is not supported: the manifests are YAML",
  'provider': "kompose's --provider is not supported: the output is for Kubernetes",
  'replicas': "kompose's --replicas is not supported: set deploy.replicas in the compose file",
  'volumes': "kompose's --volumes is not supported: named volumes become PersistentVolumeClaims",
  'build':
    "kompose's --build is not supported: build and push the images with the commands RUNBOOK.md and analyze give (--registry HOST[/PATH] names where)",
  'push-image':
    "kompose's --push-image is not supported: build and push the images with the commands RUNBOOK.md and analyze give (--registry HOST[/PATH] names where)",
  'pvc-request-size':
    "kompose's --pvc-request-size is not supported: use --volume-size NAME=SIZE or the kompose.volume.size label",
  'generate-network-policies':
    "kompose's --generate-network-policies is not needed: NetworkPolicies are generated unless --network-policies off",
  'with-kompose-annotation': "kompose's --with-kompose-annotation is not supported",
  'indent': "kompose's --indent is not supported",
};

/** Option values by the spec's name. */
export type Values = Record<string, string | boolean | string[] | undefined>;

/**
 * Splits arguments into option values and positionals by the specs, with `util.parseArgs` doing the tokenizing
 * (`--name=value`, `--` ending the options). Its strict mode would answer with Node's own messages, so the tokens are
 * checked here instead: unknown options (with kompose's refusals and a suggestion), one-dash long options and
 * grouped or glued short ones, missing values, values on switches, and single-valued options given twice.
 */
export function scan(
  command: string,
  args: readonly string[],
  specs: readonly OptionSpec[],
): { values: Values; positionals: string[] } {
  const config: NonNullable<ParseArgsConfig['options']> = {};
  const specOf = new Map<string, OptionSpec>();
  for (const spec of specs) {
    for (const name of [spec.name, ...(spec.aliases ?? [])]) {
      const short = name === spec.name && spec.short ? { short: spec.short } : {};
      config[name] = { type: spec.kind === 'boolean' ? 'boolean' : 'string', multiple: spec.kind === 'list', ...short };
      specOf.set(name, spec);
    }
  }
  const { tokens } = parseArgs({
    args: [...args],
    options: config,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values: Values = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') {
      continue;
    }
    const raw = args[token.index];
    const long = raw.startsWith('--');
    const flag = long ? token.rawName : raw;
    const spec = specOf.get(token.name);
    if (!spec || (!long && raw !== `-${spec.short}`)) {
      throw unknownOption(
        command,
        flag,
        [...specOf.keys()].map((name) => `--${name}`),
      );
    }
    if (spec.kind === 'boolean') {
      if (token.value !== undefined) {
        throw new UsageError(`${flag} takes no value`, command);
      }
      values[spec.name] = true;
      continue;
    }
    const value = token.value;
    if (value === undefined || (!token.inlineValue && value.startsWith('-') && value !== '-')) {
      throw new UsageError(`${flag} needs a value${spec.value ? ` (${spec.value})` : ''}`, command);
    }
    if (spec.kind === 'list') {
      values[spec.name] = [...((values[spec.name] as string[] | undefined) ?? []), value];
    } else {
      if (values[spec.name] !== undefined) {
        throw new UsageError(`${flag} is given twice`, command);
      }
      values[spec.name] = value;
    }
  }
  return { values, positionals };
}

/** The usage error of an option that the command does not have: kompose's with what to do instead, else a suggestion. */
function unknownOption(command: string, flag: string, known: readonly string[]): UsageError {
  const kompose = KOMPOSE_ONLY[flag.replace(/^-+/, '')];
  if (kompose) {
    return new UsageError(kompose, command);
  }
  if (!flag.startsWith('--') && flag.length > 2) {
    return new UsageError(
      `unknown option ${flag}: write long options with two dashes, short ones as one letter`,
      command,
    );
  }
  return new UsageError(`unknown option ${flag}${suggest(flag, known)}`, command);
}

/** ` (did you mean --x?)` for a close known option. */
function suggest(flag: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known.filter((k) => k.startsWith('--'))) {
    const distance = editDistance(flag, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best ? ` (did you mean ${best}?)` : '';
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}
