import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

// Issue 11 §2 and STYLE.md: a construct is one concern. No file in lib/ is over 500 lines, and no constructor is
// over 60 (from `constructor(` to its closing brace): past that, split it the way kplus splits Workload, Container,
// Volume and Service.

const LIB = path.resolve(__dirname, '..', '..', 'lib');
export const MAX_FILE_LINES = 500;
export const MAX_CONSTRUCTOR_LINES = 60;

/** What is too big in one source file, as `file: …` lines. */
export function oversized(file: string, text: string): string[] {
  const found: string[] = [];
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_FILE_LINES) {
    found.push(`${file}: ${lines} lines (at most ${MAX_FILE_LINES}): split it by concern`);
  }
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isConstructorDeclaration(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = last - first + 1;
      if (length > MAX_CONSTRUCTOR_LINES) {
        const owner =
          node.parent && ts.isClassLike(node.parent) && node.parent.name ? node.parent.name.text : '(anonymous class)';
        found.push(
          `${file}:${first + 1}: the constructor of ${owner} is ${length} lines (at most ${MAX_CONSTRUCTOR_LINES}): ` +
            'move a concern into a part with its own props',
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? sourceFiles(path.join(dir, entry.name))
        : entry.name.endsWith('.ts')
          ? [path.join(dir, entry.name)]
          : [],
    )
    .sort();
}

describe('construct sizes', () => {
  test('no file in lib/ is over 500 lines and no constructor is over 60', () => {
    const found = sourceFiles(LIB).flatMap((file) =>
      oversized(path.relative(LIB, file), fs.readFileSync(file, 'utf8')),
    );
    expect(found).toEqual([]);
  });

  test('fails on a file of 501 lines, and passes one of 500', () => {
    expect(oversized('big.ts', 'x;\n'.repeat(501))).toEqual(['big.ts: 501 lines (at most 500): split it by concern']);
    expect(oversized('fits.ts', 'x;\n'.repeat(500))).toEqual([]);
  });

  test('fails on a constructor of 61 lines, and passes one of 60', () => {
    const klass = (bodyLines: number) =>
      `class Big {\n  constructor() {\n${'    this.x = 1;\n'.repeat(bodyLines)}  }\n}\n`;
    expect(oversized('c.ts', klass(59))).toEqual([
      'c.ts:2: the constructor of Big is 61 lines (at most 60): move a concern into a part with its own props',
    ]);
    expect(oversized('c.ts', klass(58))).toEqual([]);
  });
});
