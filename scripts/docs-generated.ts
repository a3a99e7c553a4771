import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { KOMPOSE_ONLY } from '../lib/cli/options/option-scan';
import { COMMAND_SPECS, PROGRAM, helpText } from '../lib/cli/options/option-table';
import type { OptionSpec } from '../lib/cli/options/option-spec';
import { RUNBOOK_SECTIONS } from '../lib/cli/runbook/runbook';

// The parts of the README and the guides that a program knows, written by that program (`npm run docs`), so that the
// text cannot drift from it: the CLI reference from the option table, and the quick start's output from a real run.
// A generated part sits between `<!-- generated: KIND ARG -->` and `<!-- end generated -->`; the test
// (test/docs/generated.test.ts) fails when a file differs from its regeneration.

export const ROOT = path.resolve(__dirname, '..');

/** The Markdown files that make up the documentation: the README and every guide in docs/. */
export function documentationFiles(): string[] {
  const guides = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => path.join('docs', f));
  return ['README.md', ...guides];
}

const REGION = /(<!-- generated: ([a-z-]+)(?: ([^ ]+))? -->\n)[\s\S]*?(<!-- end generated -->)/g;

/** The text with every generated part written anew. */
export function regenerate(text: string): string {
  return text.replace(REGION, (_all, open: string, kind: string, arg: string | undefined, close: string) => {
    return `${open}${generate(kind, arg)}${close}`;
  });
}

function generate(kind: string, arg: string | undefined): string {
  switch (kind) {
    case 'options':
      return optionTable(arg ?? '');
    case 'help':
      return '```text\n' + helpText(arg) + '```\n';
    case 'commands':
      return commandTable();
    case 'kompose-refused':
      return komposeTable();
    case 'quickstart':
      return quickstart(arg ?? 'examples/quickstart');
    case 'runbook-sections':
      return runbookSections(arg ?? 'examples/reference');
    default:
      throw new Error(
        `unknown generated part "${kind}": use options, help, commands, kompose-refused, quickstart or runbook-sections`,
      );
  }
}

function optionNames(spec: OptionSpec): string {
  const names = [
    ...(spec.short ? [`-${spec.short}`] : []),
    `--${spec.name}`,
    ...(spec.aliases ?? []).map((a) => `--${a}`),
  ];
  return `\`${names.join('`, `')}\`${spec.value ? ` \`${spec.value}\`` : ''}`;
}

/** The options of one command as a Markdown table, from the table `--help` prints. */
export function optionTable(command: string): string {
  const specs = (COMMAND_SPECS as Record<string, readonly OptionSpec[]>)[command];
  if (!specs) {
    throw new Error(`no command "${command}" in the option table (${Object.keys(COMMAND_SPECS).join(', ')})`);
  }
  // A pipe splits a table cell even inside a code span, unless escaped.
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const rows = specs.map((spec) => `| ${cell(optionNames(spec))} | ${cell(spec.help)} |`);
  return ['| Option | What it does |', '| --- | --- |', ...rows, ''].join('\n');
}

/** kompose's options that have no counterpart here, with the message the CLI gives for each. */
function komposeTable(): string {
  const rows = Object.entries(KOMPOSE_ONLY).map(
    ([name, message]) => `| \`${name.length === 1 ? '-' : '--'}${name}\` | ${message.replace(/^[^:]*: /, '')} |`,
  );
  return ['| kompose option | Instead |', '| --- | --- |', ...rows, ''].join('\n');
}

function commandTable(): string {
  const lines = helpText().split('\n');
  const rows = lines
    .filter((line) => /^ {2}[a-z-]+ {2,}/.test(line))
    .map((line) => {
      const [, name, summary] = /^ {2}([a-z-]+) +(.*)$/.exec(line)!;
      return `| [\`${PROGRAM} ${name}\`](#${name}) | ${summary} |`;
    });
  return ['| Command | What it does |', '| --- | --- |', ...rows, ''].join('\n');
}

/**
 * `cdk8s-compose convert -o k8s` run for real on a copy of the example folder (the compiled CLI, as `npx` runs it),
 * with what it printed.
 */
function quickstart(example: string): string {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-docs-'));
  try {
    const project = path.join(work, path.basename(example));
    fs.cpSync(path.join(ROOT, example), project, { recursive: true });
    const run = spawnSync(process.execPath, [path.join(ROOT, 'bin', PROGRAM), 'convert', '-o', 'k8s'], {
      cwd: project,
      encoding: 'utf-8',
      env: { PATH: process.env.PATH ?? '', HOME: work, LANG: 'C' },
    });
    if (run.status !== 0) {
      throw new Error(`the quick start's convert failed (${run.status}): ${run.stderr}`);
    }
    return [
      '```console',
      `$ cd ${path.basename(example)}`,
      `$ ${PROGRAM} convert -o k8s`,
      ...`${run.stderr}${run.stdout}`.trimEnd().split('\n'),
      '```',
      '',
    ].join('\n');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Runs the compiled CLI in a copy of an example folder; what it wrote into `out` and printed. */
function convertExample(example: string, args: readonly string[], read: (out: string) => string): string {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-docs-'));
  try {
    const project = path.join(work, path.basename(example));
    fs.cpSync(path.join(ROOT, example), project, { recursive: true });
    const run = spawnSync(process.execPath, [path.join(ROOT, 'bin', PROGRAM), 'convert', ...args, '-o', 'k8s'], {
      cwd: project,
      encoding: 'utf-8',
      env: { PATH: process.env.PATH ?? '', HOME: work, LANG: 'C' },
    });
    if (run.status !== 0) {
      throw new Error(`convert of ${example} failed (${run.status}): ${run.stderr}`);
    }
    return read(path.join(project, 'k8s'));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const SECTION_WHEN: Record<string, string> = {
  'vm': ' (only for an app with services in a VM)',
  'move-data': ' (only when compose kept data in volumes or bound folders to bring over)',
};

/**
 * The sections of RUNBOOK.md, read from a real one: the example converted with a VM (so every conditional section
 * is there), its `##` and `###` headings in order, the numbered ones with when they are written (`RUNBOOK_SECTIONS`).
 */
function runbookSections(example: string): string {
  const args = ['--namespace', 'shop', '--target', 'auto', '--image-base-url', 'https://images.example.com/shop'];
  const runbook = convertExample(example, args, (out) => fs.readFileSync(path.join(out, 'RUNBOOK.md'), 'utf-8'));
  const items: { title: string; subsections: string[] }[] = [];
  for (const [, level, text] of runbook.matchAll(/^(#{2,3}) (.+)$/gm)) {
    if (level === '##') {
      items.push({ title: text, subsections: [] });
    } else if (items.length > 0) {
      items[items.length - 1].subsections.push(text);
    }
  }
  const lines = items.map(({ title, subsections }) => {
    const name = title.replace(/^\d+\. /, '');
    const numbered = RUNBOOK_SECTIONS.find((s) => s.title === name);
    const when = numbered ? (SECTION_WHEN[numbered.when] ?? '') : ' (not numbered: part of the section before)';
    const within = subsections.length > 0 ? `: ${subsections.join('; ')}` : '';
    return `- **${name}**${when}${within}`;
  });
  const missing = RUNBOOK_SECTIONS.filter((s) => !items.some((i) => i.title.replace(/^\d+\. /, '') === s.title));
  if (missing.length > 0) {
    throw new Error(
      `the runbook of ${example} lacks ${missing.map((s) => s.title).join(', ')}: pick an example that has every section`,
    );
  }
  return [
    `The runbook of [\`${example}\`](../${example}), converted as`,
    `\`cdk8s-compose convert ${args.join(' ')} -o k8s\`:`,
    'its sections and their subsections in order. Some subsections appear only when the app has what they are about',
    '(a backup, a one-shot Job, a port bound to `127.0.0.1`, an SSH key for the VM).',
    '',
    ...lines,
    '',
  ].join('\n');
}

/** Writes every documentation file's generated parts anew; returns the files it changed. */
export function writeDocumentation(): string[] {
  const changed: string[] = [];
  for (const file of documentationFiles()) {
    const full = path.join(ROOT, file);
    const text = fs.readFileSync(full, 'utf-8');
    const next = regenerate(text);
    if (next !== text) {
      fs.writeFileSync(full, next);
      changed.push(file);
    }
  }
  return changed;
}

if (require.main === module) {
  const changed = writeDocumentation();
  process.stdout.write(changed.length ? `docs: rewrote ${changed.join(', ')}\n` : 'docs: up to date\n');
}
