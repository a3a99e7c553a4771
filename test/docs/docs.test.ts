import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { ROOT, documentationFiles, regenerate } from '../../scripts/docs-generated';
import { COMMAND_SPECS } from '../../lib/cli/options/option-table';
import { parseCommandLine } from '../../lib/cli/options/options';
import { docBlocks, headingAnchors, markdownLinks } from './doc-blocks';

// The README and the guides in docs/: what a program knows is written by it, every link leads somewhere, every
// TypeScript example compiles against the library, and every cdk8s-compose command shown is one the CLI accepts.

/** The words of a simple shell command line: blanks split, single and double quotes group. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

describe('documentation', () => {
  test('the README is a front door: at most 300 lines', () => {
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf-8').split('\n').length).toBeLessThanOrEqual(300);
  });

  test("the README's guides table links every guide in docs/ exactly once", () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf-8');
    const table = readme.split('\n## Where to go next\n')[1].split('\n## ')[0];
    const linked = [...table.matchAll(/\]\((docs\/[^)#]+\.md)\)/g)].map((m) => m[1]).sort();
    const guides = documentationFiles().filter((f) => f.startsWith('docs/'));
    expect(linked).toEqual(guides);
  });

  test.each(documentationFiles())('%s: its generated parts are current (npm run docs rewrites them)', (file) => {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf-8');
    expect(regenerate(text)).toBe(text);
  });

  test('the CLI guide has the generated options of every command', () => {
    const cli = fs.readFileSync(path.join(ROOT, 'docs/cli.md'), 'utf-8');
    const missing = Object.keys(COMMAND_SPECS).filter((c) => !cli.includes(`<!-- generated: options ${c} -->`));
    expect(missing).toEqual([]);
  });

  test('every relative link leads to a file, and every anchor to a heading', () => {
    const broken: string[] = [];
    for (const file of documentationFiles()) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf-8');
      for (const { target, line } of markdownLinks(text)) {
        if (/^[a-z]+:/.test(target)) {
          continue;
        }
        const [where, anchor] = target.split('#');
        const full = where ? path.resolve(path.dirname(path.join(ROOT, file)), where) : path.join(ROOT, file);
        if (!fs.existsSync(full)) {
          broken.push(`${file}:${line}: ${target}: no such file`);
        } else if (anchor !== undefined && !headingAnchors(fs.readFileSync(full, 'utf-8')).has(anchor)) {
          broken.push(`${file}:${line}: ${target}: no heading with that anchor`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  test('the link check fails on a missing file and a missing anchor', () => {
    expect(markdownLinks('see [a](docs/nowhere.md) and `[b](x.md)`')).toEqual([{ target: 'docs/nowhere.md', line: 1 }]);
    expect(headingAnchors('# The VM: a `guide`\n## Two\n## Two\n').has('the-vm-a-guide')).toBe(true);
    expect([...headingAnchors('## Two\n## Two\n')]).toEqual(['two', 'two-1']);
  });

  test('every TypeScript example compiles against the library', () => {
    const blocks = docBlocks().filter((b) => b.lang === 'ts' || b.lang === 'typescript');
    expect(blocks.length).toBeGreaterThan(0);
    const dir = path.join(ROOT, 'build', 'doc-examples');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const where = new Map<string, string>();
    const files = blocks.map((block, n) => {
      const file = path.join(dir, `example-${n}.ts`);
      // An example without imports or exports would be a script sharing one global scope with the others.
      fs.writeFileSync(file, /^(import|export) /m.test(block.code) ? block.code : `${block.code}export {};\n`);
      where.set(file, `${block.file}:${block.line}`);
      return file;
    });
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(ROOT, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: () => undefined,
      },
    )!;
    const program = ts.createProgram(files, {
      ...config.options,
      noEmit: true,
      incremental: false,
      noUnusedLocals: false,
      types: ['node', 'jest'],
      baseUrl: ROOT,
      paths: { 'cdk8s-compose': ['lib/index.ts'] },
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && where.has(path.resolve(d.file.fileName)))
      .map((d) => {
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${where.get(path.resolve(d.file!.fileName))} (+${line + 1}): ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
  });

  test('every cdk8s-compose command shown is one the CLI accepts', () => {
    const commands = docBlocks()
      .filter((b) => ['sh', 'console', 'bash', 'shell'].includes(b.lang))
      .flatMap((b) =>
        b.code
          .split('\n')
          .map((line, n) => ({ at: `${b.file}:${b.line + 1 + n}`, line: line.replace(/^\$ /, '') }))
          .filter(({ line }) => /^(npx |node bin\/)?cdk8s-compose /.test(line) && !line.includes('…')),
      );
    expect(commands.length).toBeGreaterThan(5);
    const refused: string[] = [];
    for (const { at, line } of commands) {
      const words = shellWords(
        line
          .replace(/\s+#.*$/, '')
          .split(/ (\||&&) /)[0]
          .trim(),
      );
      const argv = words.slice(words.indexOf('cdk8s-compose') >= 0 ? words.indexOf('cdk8s-compose') + 1 : 2);
      try {
        parseCommandLine(argv);
      } catch (err) {
        refused.push(`${at}: ${line}: ${(err as Error).message}`);
      }
    }
    expect(refused).toEqual([]);
  });
});
