/**
 * The one quoting rule of every command the tool prints (the runbook, warnings, `analyze`, `deploy --dry-run`, the
 * golden image's scripts), and the one way text goes into Markdown code: a compose project's text (an image, a label,
 * a path, a build argument) is data, never shell syntax, and never closes the code it is printed in.
 */

/** A word as a POSIX shell reads it back: as it is when it has no special characters, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[-A-Za-z0-9_./=:,@%+]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A word of {@link shellCommand} that is already quoted (a flag built by {@link shellFlag}). */
export class ShellWord {
  public constructor(public readonly text: string) {}
}

/** `--name=value`, the value quoted by {@link shellQuote} (the flag itself is the tool's own text). */
export function shellFlag(name: string, value: string): ShellWord {
  return new ShellWord(`${name}=${shellQuote(value)}`);
}

/** A command line: each word quoted by {@link shellQuote} (unless a {@link ShellWord}), joined by spaces. */
export function shellCommand(...words: readonly (string | ShellWord)[]): string {
  return words.map((w) => (w instanceof ShellWord ? w.text : shellQuote(w))).join(' ');
}

/** The longest run of backticks in `text` (0 without any). */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) {
    longest = Math.max(longest, run.length);
  }
  return longest;
}

/**
 * A fenced code block (CommonMark): its fence is longer than any run of backticks in its lines, so no line of them
 * closes it; each line is indented by `indent` (under a list item).
 */
export function codeBlock(info: string, lines: readonly string[], indent = ''): string[] {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(lines.join('\n')) + 1));
  return [`${fence}${info}`, ...lines.join('\n').split('\n'), fence].map((l) => `${indent}${l}`);
}

/**
 * Inline code (CommonMark): delimited by a run of backticks longer than any inside it, with spaces inside the
 * delimiters where the text starts or ends with a backtick; line breaks become spaces, as inline code shows them.
 */
export function inlineCode(text: string): string {
  const flat = text.replace(/\r\n|[\r\n]/g, ' ');
  const fence = '`'.repeat(longestBacktickRun(flat) + 1);
  const pad = /^`|`$/.test(flat) || /^ .*[^ ].* $/.test(flat) ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}
