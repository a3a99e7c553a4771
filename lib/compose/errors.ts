import { ComposeLocation } from './model';

/** What a `ComposeError` knows about the bad input. Every field is optional; give all that are known. */
export interface ComposeErrorDetails {
  /** Where the bad input is. */
  readonly at?: ComposeLocation;
  /** The value received. Quoted in the message (shortened); leave it out for values that may be secret. */
  readonly value?: unknown;
  /** What is allowed, e.g. `a port number 1-65535`. */
  readonly allowed?: string;
  /** How to fix it, e.g. `write the container port as a number, for example "8080:80"`. */
  readonly hint?: string;
}

const MAX_VALUE_CHARS = 80;
/** Longest problem, allowed or hint text in a message: a hostile file's 1 MB text must not fill the terminal. */
export const MAX_MESSAGE_PART_CHARS = 500;

/**
 * The one error type of the project: bad compose input, bad construct props, and rules over the finished app.
 *
 * Its message reads
 * `compose.yaml:12:7: services.web.ports[1]: invalid port "80:abc". Allowed: …. Fix: ….`
 * and never carries a stack trace into the CLI's output.
 */
export class ComposeError extends Error {
  /** The problem alone, without location, value, allowed or hint. */
  public readonly problem: string;
  public readonly file?: string;
  public readonly path?: string;
  public readonly line?: number;
  public readonly column?: number;
  public readonly value?: unknown;
  public readonly allowed?: string;
  public readonly hint?: string;

  constructor(problem: string, details: ComposeErrorDetails = {}) {
    const shortened = {
      ...details,
      allowed: details.allowed === undefined ? undefined : shorten(details.allowed),
      hint: details.hint === undefined ? undefined : shorten(details.hint),
    };
    super(printable(formatError(shorten(problem), shortened)));
    this.name = 'ComposeError';
    this.problem = printable(shorten(problem));
    this.file = details.at?.file;
    this.path = details.at?.path;
    this.line = details.at?.line;
    this.column = details.at?.column;
    this.value = details.value;
    this.allowed = shortened.allowed;
    this.hint = shortened.hint;
  }
}

/** True for errors of this project's own type (also across module copies, e.g. jest's registries). */
export function isComposeError(err: unknown): err is ComposeError {
  return err instanceof ComposeError || (err instanceof Error && err.name === 'ComposeError' && 'problem' in err);
}

/** A non-fatal finding: an ignored key, a rewrite, a relaxed default. Returned by the library, never printed by it. */
export interface ComposeWarning {
  /** A stable kebab-case code, e.g. `unsupported-key`, `env-rewrite`, `local-only-port`. */
  readonly code: string;
  readonly message: string;
  readonly at: ComposeLocation;
}

/** `compose.yaml:12:7: services.web.ports[1]` (parts that are unknown are left out). */
export function formatLocation(at: ComposeLocation | undefined): string {
  if (!at) {
    return '';
  }
  let where = at.file;
  if (at.line !== undefined) {
    where += `:${at.line}`;
    if (at.column !== undefined) {
      where += `:${at.column}`;
    }
  }
  return [where, at.path].filter((part) => part).join(': ');
}

/** One line: `compose.yaml: services.web.ports[2]: message`. */
export function formatWarning(warning: ComposeWarning): string {
  const where = formatLocation(warning.at);
  return printable(where ? `${where}: ${warning.message}` : warning.message);
}

/**
 * The text with control characters written as `\uXXXX`: a key or value from a hostile file must not move the
 * cursor, clear the terminal or start a new line in a message.
 */
export function printable(text: string): string {
  return text.replace(/\p{Cc}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The text cut to {@link MAX_MESSAGE_PART_CHARS}, saying how much was left out. */
export function shorten(text: string): string {
  return text.length <= MAX_MESSAGE_PART_CHARS
    ? text
    : `${text.slice(0, MAX_MESSAGE_PART_CHARS - 1)}… (${text.length - MAX_MESSAGE_PART_CHARS + 1} more characters)`;
}

/** Quotes a received value for a message, shortened to a readable length. */
export function quoteValue(value: unknown): string {
  let text: string;
  if (typeof value === 'string') {
    text = JSON.stringify(value);
  } else if (value === undefined) {
    text = 'nothing';
  } else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

function formatError(problem: string, details: ComposeErrorDetails): string {
  const parts: string[] = [];
  const where = formatLocation(details.at);
  let head = where ? `${where}: ${problem}` : problem;
  if ('value' in details) {
    head += ` (got ${quoteValue(details.value)})`;
  }
  parts.push(sentence(head));
  if (details.allowed) {
    parts.push(sentence(`Allowed: ${details.allowed}`));
  }
  if (details.hint) {
    parts.push(sentence(`Fix: ${details.hint}`));
  }
  return parts.join(' ');
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
