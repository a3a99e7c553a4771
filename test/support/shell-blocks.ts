import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

/**
 * The code blocks of a Markdown text as CommonMark reads them, and a way to run shell text the tool printed without
 * running anything but the shell: every command that is not a shell builtin is logged instead of run.
 */

/** One fenced code block: its info string, its text, and the 1-based line of its opening fence. */
export interface CodeBlock {
  readonly info: string;
  readonly text: string;
  readonly line: number;
}

/**
 * The fenced code blocks of `markdown` (CommonMark's rules for backtick fences: an opening fence of three or more
 * backticks after up to three spaces of the container's indentation; it is closed by a line of at least as many
 * backticks and nothing else; the opening fence's indentation is removed from each content line).
 */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,})([^`]*)$/.exec(lines[i]);
    if (!open) {
      continue;
    }
    const [, indent, fence, info] = open;
    const content: string[] = [];
    const start = i;
    while (++i < lines.length && !new RegExp(`^ *\`{${fence.length},}\\s*$`).test(lines[i])) {
      content.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i].trimStart());
    }
    blocks.push({ info: info.trim(), text: content.join('\n'), line: start + 1 });
  }
  return blocks;
}

/** A command the shell would have run: its name and its arguments, word by word. */
export interface LoggedCommand {
  readonly name: string;
  readonly args: readonly string[];
}

/** What running shell text with every command logged did. */
export interface ShellRun {
  readonly commands: readonly LoggedCommand[];
  /** Files that appeared in the folder it ran in. */
  readonly created: readonly string[];
  readonly status: number | null;
}

const RECORD = '\u001e';
const UNIT = '\u001f';

/**
 * Runs `script` with bash in `dir` with an empty PATH: each command that is not a builtin reaches bash's
 * `command_not_found_handle`, which logs its words and succeeds. So `kubectl run …` is logged with its arguments as
 * the shell split them, and an injected `touch x` or `curl … | sh` is logged as a command of its own, not run.
 */
export function runLogged(script: string, dir: string, timeoutMs = 10_000): ShellRun {
  const log = path.join(dir, '.commands.log');
  fs.writeFileSync(log, '');
  const before = new Set(fs.readdirSync(dir));
  const handler =
    `command_not_found_handle() { { printf '%s${UNIT}' "$@"; printf '${RECORD}'; } >> ${JSON.stringify(log)}; ` +
    'return 0; }\n';
  const run = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', `${handler}${script}`], {
    cwd: dir,
    env: { PATH: path.join(dir, '.no-tools') },
    encoding: 'utf-8',
    timeout: timeoutMs,
    input: '',
  });
  const commands = fs
    .readFileSync(log, 'utf-8')
    .split(RECORD)
    .filter((r) => r !== '')
    .map((record) => {
      const words = record.split(UNIT).slice(0, -1);
      return { name: words[0], args: words.slice(1) };
    });
  const created = fs.readdirSync(dir).filter((f) => !before.has(f));
  return { commands, created, status: run.status };
}
