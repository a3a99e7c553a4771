import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../support/shared';

// Issue 11 §5: generated classes that nothing uses are not generated. `npm run import` (scripts/import.js) generates
// the k8s API and one module per listed CRD; lib/ (and main.ts) must import each of them, and nothing else from imports/.

interface CrdSource {
  readonly kind: string;
  readonly prefix: string;
  readonly file: string;
}

const IMPORTS_DIR = path.join(PROJECT_ROOT, 'imports');
const script = require(path.join(PROJECT_ROOT, 'scripts', 'import.js')) as {
  SCHEMAS: string;
  CRDS: readonly CrdSource[];
};

/** The module the cdk8s CLI writes for a CRD: `<prefix>-<group>` (imports/<module>.ts). */
function moduleOf(crd: CrdSource): string {
  const doc = parse(fs.readFileSync(path.join(script.SCHEMAS, crd.file), 'utf-8'));
  return `${crd.prefix}-${doc.spec.group}`;
}

/** The TypeScript files of lib/ and main.ts, relative to the project. */
function codeFiles(): string[] {
  const found = ['main.ts'];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(relative);
      } else if (entry.name.endsWith('.ts')) {
        found.push(relative);
      }
    }
  };
  walk('lib');
  return found.sort();
}

/** Every module of imports/ that the code imports, with the files that import it. */
function importedModules(): Map<string, string[]> {
  const modules = new Map<string, string[]>();
  const specifier = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)'([^']+)'/g;
  for (const file of codeFiles()) {
    const text = fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf-8');
    for (const match of text.matchAll(specifier)) {
      if (!match[1].startsWith('.')) {
        continue;
      }
      const target = path.resolve(PROJECT_ROOT, path.dirname(file), match[1]);
      if (path.dirname(target) === IMPORTS_DIR) {
        const name = path.basename(target);
        modules.set(name, [...(modules.get(name) ?? []), file]);
      }
    }
  }
  return modules;
}

describe('what npm run import generates (scripts/import.js)', () => {
  const generated = ['k8s', ...script.CRDS.map(moduleOf)].sort();
  const imported = importedModules();

  test('each CRD module holds the one kind it is listed for', () => {
    for (const crd of script.CRDS) {
      const doc = parse(fs.readFileSync(path.join(script.SCHEMAS, crd.file), 'utf-8'));
      expect(`${crd.file}: ${doc.spec.names.kind}`).toBe(`${crd.file}: ${crd.kind}`);
    }
  });

  test('imports/ holds exactly the generated modules (run `npm run import` after changing the list)', () => {
    const present = fs
      .readdirSync(IMPORTS_DIR)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => name.slice(0, -'.ts'.length))
      .sort();
    expect(present).toEqual(generated);
  });

  test('the code imports only generated modules', () => {
    const missing = [...imported]
      .filter(([name]) => !generated.includes(name))
      .map(([name, files]) => `${files.join(', ')} import imports/${name}, which scripts/import.js does not generate`);
    expect(missing).toEqual([]);
  });

  test('every generated module is imported by the code (a module nothing uses is not generated)', () => {
    const unused = generated.filter((name) => !imported.has(name));
    expect(unused).toEqual([]);
  });
});
