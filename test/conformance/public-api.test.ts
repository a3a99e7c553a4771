import * as path from 'path';
import * as ts from 'typescript';
import { docText } from '../support/readme';

/**
 * The package's public API is lib/index.ts: a small surface (under 100 names), every exported interface documented,
 * every optional member of an exported props or options interface with its `@default`, and docs/constructs.md's
 * "Construct API" section naming each export. Read with the TypeScript compiler from the source.
 */

const INDEX = path.resolve(__dirname, '../../lib/index.ts');
const LIMIT = 100;

interface Exported {
  readonly name: string;
  readonly target: ts.Symbol;
}

function publicApi(): { checker: ts.TypeChecker; exports: Exported[] } {
  const program = ts.createProgram([INDEX], {
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2020,
    esModuleInterop: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(INDEX)!)!;
  const exports = checker.getExportsOfModule(moduleSymbol).map((symbol) => ({
    name: symbol.name,
    target: symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol,
  }));
  return { checker, exports: exports.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
}

const { checker, exports: api } = publicApi();
const interfaces = api.filter((e) => e.target.flags & ts.SymbolFlags.Interface);

test(`lib/index.ts exports fewer than ${LIMIT} names`, () => {
  expect(api.length).toBeGreaterThan(0);
  expect(api.length).toBeLessThan(LIMIT);
});

test('every exported interface has a doc comment', () => {
  expect(interfaces.length).toBeGreaterThan(0);
  const undocumented = interfaces
    .filter((e) => ts.displayPartsToString(e.target.getDocumentationComment(checker)).trim() === '')
    .map((e) => e.name);
  expect(undocumented).toEqual([]);
});

test('every optional member of an exported props or options interface has a doc comment and a @default', () => {
  const propsInterfaces = interfaces.filter((e) => /(Props|Options|Overrides|Settings)$/.test(e.name));
  expect(propsInterfaces.length).toBeGreaterThan(0);
  const missing: string[] = [];
  for (const e of propsInterfaces) {
    for (const member of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(e.target))) {
      if (!(member.flags & ts.SymbolFlags.Optional)) {
        continue;
      }
      const doc = ts.displayPartsToString(member.getDocumentationComment(checker)).trim();
      const hasDefault = member.getJsDocTags(checker).some((tag) => tag.name === 'default');
      if (doc === '' || !hasDefault) {
        missing.push(
          `${e.name}.${member.name}${doc === '' ? ' (no doc comment)' : ''}${hasDefault ? '' : ' (no @default)'}`,
        );
      }
    }
  }
  expect(missing).toEqual([]);
});

test('the public handles of every exported class are readonly (a readonly field or a getter without a setter)', () => {
  const classes = api.filter((e) => e.target.flags & ts.SymbolFlags.Class);
  expect(classes.length).toBeGreaterThan(0);
  const mutable: string[] = [];
  for (const e of classes) {
    for (const member of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(e.target))) {
      for (const declaration of member.declarations ?? []) {
        const modifiers = ts.canHaveModifiers(declaration) ? (ts.getModifiers(declaration) ?? []) : [];
        const kinds = new Set(modifiers.map((m) => m.kind));
        if (kinds.has(ts.SyntaxKind.PrivateKeyword) || kinds.has(ts.SyntaxKind.ProtectedKeyword)) {
          continue;
        }
        if (ts.isPropertyDeclaration(declaration) && !kinds.has(ts.SyntaxKind.ReadonlyKeyword)) {
          mutable.push(`${e.name}.${member.name}`);
        }
        if (ts.isSetAccessorDeclaration(declaration)) {
          mutable.push(`${e.name}.${member.name} (setter)`);
        }
      }
    }
  }
  expect(mutable).toEqual([]);
});

test('the constructs guide (docs/constructs.md) lists exactly the exported names', () => {
  const section = docText('docs/constructs.md');
  const start = section.indexOf('**What the package exports.**');
  expect(start).toBeGreaterThanOrEqual(0);
  const rows = section
    .slice(start)
    .split('\n\n')[1]
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Group'));
  const listed = rows.flatMap((row) => [...row.split('|')[2].matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1]));
  expect([...listed].sort()).toEqual(api.map((e) => e.name));
});
