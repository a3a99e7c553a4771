// The context the normaliser passes to the parts of a service, and the small readers they share.
import { VariableLookup } from './interpolate';
import { EXTERNAL_KEYS } from './keys';
import { asBool, asText, checkKeys, invalid, isNull, optionalString, Warn, wrongType } from './read';
import { shellSplit } from './shell-split';
import { ToolOutput } from './tool-output';
import { parseDuration } from './units';
import { YNode } from './yaml';
import { compare } from '../util/sort';

/** What the normaliser needs from the loader. */
export interface NormalizeContext {
  /** Absolute project folder; used to read files, never written into the model. */
  readonly projectDir: string;
  readonly projectName: string;
  /** The compose files as the user named them, in merge order. */
  readonly files: readonly string[];
  /** The interpolation environment (shell over env files): for `environment` entries without a value. */
  readonly lookup: VariableLookup;
  readonly images: Readonly<Record<string, string>>;
  /** `HOST[/PATH]` before the references of images built from source (`--registry`). */
  readonly registry?: string;
  readonly profiles: readonly string[];
  readonly allowOutsideProject: boolean;
  /** What the tool wrote, which is never read back (see `LoadComposeOptions.outputDir`). */
  readonly toolOutput: ToolOutput;
  readonly warn: Warn;
}

/** What the parts of a service read besides the loader's context: the names declared at the top level. */
export interface SharedContext extends NormalizeContext {
  readonly volumeNames: ReadonlySet<string>;
  readonly networkNames: ReadonlySet<string>;
  readonly secretNames: ReadonlySet<string>;
  readonly configNames: ReadonlySet<string>;
  readonly enabled: ReadonlySet<string>;
  readonly allNames: ReadonlySet<string>;
  /** Services left out by profiles, with their profiles. */
  readonly disabled: ReadonlyMap<string, readonly string[]>;
  /** Services run by a `provider:`, left out. */
  readonly providers: ReadonlySet<string>;
  /** Ports expanded so far in all services, against {@link MAX_PORTS_PER_PROJECT}. */
  readonly portCount: { value: number };
}

/** `{ key: value }` when the value is defined, else `{}`: the model leaves unset optional fields out. */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

export function sorted<T>(items: T[], key: (item: T) => string): T[] {
  return items.sort((a, b) => compare(key(a), key(b)));
}

export function nonNull(node: YNode | undefined): YNode | undefined {
  return isNull(node) ? undefined : node;
}

const MAX_DURATION_TEXT = 'a duration such as 10s, 1m30s or 500ms';

export function commandOf(node: YNode | undefined): string[] | undefined {
  if (node === undefined) {
    return undefined;
  }
  if (node.kind === 'scalar' && typeof node.value === 'string') {
    const words = shellSplit(node.value);
    if (!words) {
      throw invalid(node, 'unbalanced quotes in the command', {
        allowed: 'a string split like a shell, or a list of arguments',
        hint: 'close every quote, or write the command as a list: ["sh", "-c", "..."]',
      });
    }
    return words;
  }
  if (node.kind === 'seq') {
    return node.items.map((item) => asText(item, { allowed: 'a list of arguments (strings)' }));
  }
  throw wrongType(node, 'a string or a list of strings', { allowed: 'a command string, or a list of arguments' });
}

export function durationOf(node: YNode | undefined): number | undefined {
  if (node === undefined) {
    return undefined;
  }
  const seconds =
    node.kind === 'scalar' && typeof node.value === 'string'
      ? parseDuration(node.value)
      : node.kind === 'scalar' && node.value === 0
        ? 0
        : undefined;
  if (seconds === undefined) {
    throw invalid(node, 'invalid duration', {
      allowed: MAX_DURATION_TEXT,
      hint: 'write a number with a unit (h, m, s, ms), for example 30s',
    });
  }
  return seconds;
}

export function externalOf(node: YNode | undefined, warn: Warn): { external: boolean; name?: string } {
  if (isNull(node)) {
    return { external: false };
  }
  if (node!.kind === 'map') {
    checkKeys(node!, EXTERNAL_KEYS, 'external', warn);
    return { external: true, ...optional('name', optionalString(node!.entries.get('name'))) };
  }
  return { external: asBool(node!) };
}
