import { ComposeError } from './errors';
import { ComposeLocation } from './model';
import { YMap, YNode, YScalar, YSeq, keepMergeTag } from './yaml';

/** Looks a variable up; undefined when it is not set. */
export type VariableLookup = (name: string) => string | undefined;

/** Called once for each `$VAR` or `${VAR}` without a default that is not set. */
export type UnsetVariableHandler = (name: string, at: ComposeLocation) => void;

const ALLOWED =
  '$VAR, ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?message}, ${VAR?message}, ' +
  '${VAR:+replacement}, ${VAR+replacement} and $$ for a literal $';

/** Deepest nesting of defaults (`${A:-${B:-…}}`); deeper text is hostile (each level rescans the rest). */
export const MAX_INTERPOLATION_DEPTH = 32;

/** A variable name's characters: `[A-Za-z_]` first, then `[A-Za-z0-9_]`. */
function isNameChar(code: number, first: boolean): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x5f ||
    (!first && code >= 0x30 && code <= 0x39)
  );
}

/**
 * Interpolates one string with compose's syntax. Defaults, messages and replacements may hold further
 * interpolations (`${A:-${B}}`); they are evaluated only when used, as compose does.
 */
export function interpolateString(
  text: string,
  lookup: VariableLookup,
  at: ComposeLocation,
  onUnset: UnsetVariableHandler = () => undefined,
): string {
  const fail = (): never => {
    throw new ComposeError('invalid interpolation', {
      at,
      value: text,
      allowed: ALLOWED,
      hint: 'write $$ for a literal $, and close every ${ with }',
    });
  };

  let depth = 0;
  const evaluate = (template: string): string => {
    depth += 1;
    if (depth > MAX_INTERPOLATION_DEPTH) {
      throw new ComposeError(`interpolation nested more than ${MAX_INTERPOLATION_DEPTH} levels deep`, {
        at,
        hint: 'nest ${VAR:-default} defaults a few levels at most',
      });
    }
    try {
      return evaluateAt(template);
    } finally {
      depth -= 1;
    }
  };

  const evaluateAt = (template: string): string => {
    let out = '';
    let i = 0;
    while (i < template.length) {
      const dollar = template.indexOf('$', i);
      if (dollar < 0) {
        out += template.slice(i);
        break;
      }
      out += template.slice(i, dollar);
      i = dollar;
      const next = template[i + 1];
      if (next === '$') {
        out += '$';
        i += 2;
      } else if (next !== undefined && isNameChar(next.charCodeAt(0), true)) {
        let end = i + 2;
        while (end < template.length && isNameChar(template.charCodeAt(end), false)) {
          end += 1;
        }
        out += resolve(template.slice(i + 1, end), undefined, '');
        i = end;
      } else if (next === '{') {
        const close = findClose(template, i + 2);
        if (close < 0) {
          fail();
        }
        out += braced(template.slice(i + 2, close));
        i = close + 1;
      } else {
        // A `$` that no name, `{` or `$` follows is kept, as compose keeps it (`cost $5`, `a$(date)`, `end$`).
        out += '$';
        i += 1;
      }
    }
    return out;
  };

  const braced = (inner: string): string => {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([\s\S]*))?$/.exec(inner);
    if (!match) {
      return fail();
    }
    return resolve(match[1], match[2], match[3] ?? '');
  };

  const resolve = (name: string, operator: string | undefined, word: string): string => {
    const value = lookup(name);
    const set = value !== undefined;
    const nonEmpty = set && value !== '';
    switch (operator) {
      case undefined:
        if (!set) {
          onUnset(name, at);
          return '';
        }
        return value;
      case ':-':
        return nonEmpty ? value : evaluate(word);
      case '-':
        return set ? value : evaluate(word);
      case ':+':
        return nonEmpty ? evaluate(word) : '';
      case '+':
        return set ? evaluate(word) : '';
      case ':?':
      case '?':
        if (operator === ':?' ? nonEmpty : set) {
          return value as string;
        }
        throw new ComposeError(`required variable ${name} is missing a value${word ? `: ${evaluate(word)}` : ''}`, {
          at,
          hint: `set ${name} in the environment or in the .env file (or pass an env file)`,
        });
      default:
        return fail();
    }
  };

  return evaluate(text);
}

/** Index of the `}` closing a `${` whose content starts at `start`, skipping nested `${…}`; -1 when unclosed. */
function findClose(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i += 1) {
    const ch = text[i];
    if (ch === '$' && text[i + 1] === '$') {
      i += 1;
    } else if (ch === '$' && text[i + 1] === '{') {
      depth += 1;
      i += 1;
    } else if (ch === '}') {
      if (depth === 0) {
        return i;
      }
      depth -= 1;
    }
  }
  return -1;
}

/** Paths whose values may be secret (environment values, build args, config contents): never quoted. */
const SENSITIVE_PATH = /(^|\.)(environment|args)(\.|\[|$)|^configs\.[^.]+\.content$/;

/**
 * Interpolates every string value of a located tree (keys stay as written, as in compose). A scalar whose text
 * changed keeps the written text in `written`, so messages never quote a variable's value.
 */
export function interpolateTree(node: YNode, lookup: VariableLookup, onUnset?: UnsetVariableHandler): YNode {
  return keepMergeTag(node, interpolateNode(node, lookup, onUnset));
}

function interpolateNode(node: YNode, lookup: VariableLookup, onUnset?: UnsetVariableHandler): YNode {
  switch (node.kind) {
    case 'scalar': {
      if (typeof node.value !== 'string' || !node.value.includes('$')) {
        return node;
      }
      let value: string;
      try {
        value = interpolateString(node.value, lookup, node.at, onUnset);
      } catch (err) {
        if (err instanceof ComposeError && err.value !== undefined && SENSITIVE_PATH.test(node.at.path)) {
          throw new ComposeError(err.problem, { at: node.at, allowed: err.allowed, hint: err.hint });
        }
        throw err;
      }
      if (value === node.value) {
        return node;
      }
      const out: YScalar = { kind: 'scalar', value, at: node.at, keyAt: node.keyAt, written: node.value };
      return out;
    }
    // A list or map whose values did not change is returned as it is: most of a file has no variable.
    case 'seq': {
      let items: YNode[] | undefined;
      node.items.forEach((item, index) => {
        const next = interpolateTree(item, lookup, onUnset);
        if (next !== item && items === undefined) {
          items = node.items.slice(0, index);
        }
        items?.push(next);
      });
      if (items === undefined) {
        return node;
      }
      const out: YSeq = { kind: 'seq', items, at: node.at, keyAt: node.keyAt };
      return out;
    }
    case 'map': {
      let entries: Map<string, YNode> | undefined;
      for (const [key, value] of node.entries) {
        const next = interpolateTree(value, lookup, onUnset);
        if (next !== value && entries === undefined) {
          entries = new Map();
          for (const [before, kept] of node.entries) {
            if (before === key) {
              break;
            }
            entries.set(before, kept);
          }
        }
        entries?.set(key, next);
      }
      if (entries === undefined) {
        return node;
      }
      const out: YMap = { kind: 'map', entries, at: node.at, keyAt: node.keyAt };
      return out;
    }
  }
}
