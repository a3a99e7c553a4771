import { ComposeError } from './errors';
import { interpolateString, VariableLookup } from './interpolate';

/** One variable read from an env file. */
export interface DotenvEntry {
  readonly name: string;
  /** Undefined for a bare `NAME` line whose variable is not set in the lookup environment. */
  readonly value: string | undefined;
  /** 1-based line where the entry starts. */
  readonly line: number;
}

/**
 * An environment variable name both the engine and Kubernetes accept: a letter or `_`, then letters, digits, `_`,
 * `.` and `-`. Env files and `environment` keys are held to it.
 */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * Parses an env file as compose does: `NAME=value`, `export NAME=value`, `NAME: value`, `#` comments,
 * single quotes (literal), double quotes (escapes, may span lines), unquoted values ending at ` #`, and a bare
 * `NAME` that takes its value from the environment. `${VAR}` in double-quoted and unquoted values is interpolated,
 * looking first in `lookup`, then in the file's earlier entries.
 *
 * Messages name the file, line and variable, never a value (env files hold secrets).
 */
export function parseDotenv(text: string, file: string, lookup: VariableLookup = () => undefined): DotenvEntry[] {
  const entries: DotenvEntry[] = [];
  const own = new Map<string, string>();
  const resolve: VariableLookup = (name) => lookup(name) ?? own.get(name);
  const src = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  let pos = 0;
  let line = 1;

  const fail = (problem: string, atLine: number, hint: string): never => {
    throw new ComposeError(problem, {
      at: { file, path: '', line: atLine },
      allowed: 'NAME=value lines, `export NAME=value`, quoted values, # comments and blank lines',
      hint,
    });
  };

  while (pos < src.length) {
    const end = src.indexOf('\n', pos);
    const lineEnd = end < 0 ? src.length : end;
    const startLine = line;
    let raw = src.slice(pos, lineEnd);
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) {
      pos = lineEnd + 1;
      line += 1;
      continue;
    }
    raw = raw.replace(/^\s*export\s+/, '');
    const sep = /[=:]/.exec(raw);
    if (!sep) {
      const name = raw.trim();
      if (!ENV_NAME.test(name)) {
        fail('invalid line in env file', startLine, 'write each variable as NAME=value');
      }
      const value = lookup(name);
      entries.push({ name, value, line: startLine });
      pos = lineEnd + 1;
      line += 1;
      continue;
    }
    const name = raw.slice(0, sep.index).trim();
    if (!ENV_NAME.test(name)) {
      fail(
        'invalid variable name in env file',
        startLine,
        'names start with a letter or _ and hold letters, digits, _, . and -; write NAME=value',
      );
    }
    // The value starts after the separator in the whole text, since quoted values may span lines.
    let valueStart = pos + (src.slice(pos, lineEnd).length - raw.length) + sep.index + 1;
    while (src[valueStart] === ' ' || src[valueStart] === '\t') {
      valueStart += 1;
    }
    const quote = src[valueStart];
    let value: string;
    if (quote === "'" || quote === '"') {
      let i = valueStart + 1;
      let body = '';
      let closed = false;
      while (i < src.length) {
        const ch = src[i];
        if (ch === '\\' && quote === '"' && i + 1 < src.length) {
          const esc = src[i + 1];
          body +=
            esc === 'n'
              ? '\n'
              : esc === 'r'
                ? '\r'
                : esc === 't'
                  ? '\t'
                  : esc === '$'
                    ? '$$'
                    : esc === '\\' || esc === '"'
                      ? esc
                      : `\\${esc}`;
          i += 2;
          continue;
        }
        if (ch === quote) {
          closed = true;
          break;
        }
        body += ch;
        i += 1;
      }
      if (!closed) {
        fail(
          `unterminated ${quote === '"' ? 'double' : 'single'} quote in the value of ${name}`,
          startLine,
          `close the quote with ${quote}`,
        );
      }
      const newlines = src.slice(pos, i).split('\n').length - 1;
      const after = src.indexOf('\n', i);
      const rest = src.slice(i + 1, after < 0 ? src.length : after).trim();
      if (rest !== '' && !rest.startsWith('#')) {
        fail(
          `unexpected text after the quoted value of ${name}`,
          startLine + newlines,
          'put a comment after " #", or move the text inside the quotes',
        );
      }
      value = quote === "'" ? body : interpolateValue(body, resolve, file, name, startLine);
      line = startLine + newlines + 1;
      pos = after < 0 ? src.length : after + 1;
    } else {
      let text2 = src.slice(valueStart, lineEnd);
      const comment = /\s#/.exec(text2);
      if (comment) {
        text2 = text2.slice(0, comment.index);
      }
      value = interpolateValue(text2.trim(), resolve, file, name, startLine);
      pos = lineEnd + 1;
      line += 1;
    }
    own.set(name, value);
    entries.push({ name, value, line: startLine });
  }
  return entries;
}

/** Interpolates an env file value; a failure names the variable and line but never quotes the value. */
function interpolateValue(text: string, lookup: VariableLookup, file: string, name: string, line: number): string {
  try {
    return interpolateString(text, lookup, { file, path: name, line });
  } catch (err) {
    if (err instanceof ComposeError && err.value !== undefined) {
      throw new ComposeError(err.problem, { at: { file, path: name, line }, allowed: err.allowed, hint: err.hint });
    }
    throw err;
  }
}
