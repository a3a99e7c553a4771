import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../support/shared';

// Issue 11 §5: generated classes that nothing uses are not generated. `npm run import` (scripts/import.js) generates
// imports/k8s.ts with the Kubernetes kinds it lists and one module per listed CRD; the code (lib/, main.ts and the
// tests) must use each of them, and import nothing from imports/ that the script does not generate.

interface CrdSource {
  readonly kind: string;
  readonly prefix: string;
  readonly file: string;
}

const IMPORTS_DIR = path.join(PROJECT_ROOT, 'imports');
const script = require(path.join(PROJECT_ROOT, 'scripts', 'import.js')) as {
  SCHEMAS: string;
  K8S_KINDS: readonly string[];
  CRDS: readonly CrdSource[];
};

/** The module the cdk8s CLI writes for a CRD: `<prefix>-<group>` (imports/<module>.ts). */
function moduleOf(crd: CrdSource): string {
  const doc = parse(fs.readFileSync(path.join(script.SCHEMAS, crd.file), 'utf-8'));
  return `${crd.prefix}-${doc.spec.group}`;
}

/** The TypeScript files of lib/, test/ and main.ts, relative to the project. */
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
  walk('test');
  return found.sort();
}

/** One import of a module of imports/: the file that imports it, and the names it takes (none for a bare require). */
interface GeneratedImport {
  readonly file: string;
  readonly module: string;
  readonly names: readonly string[];
}

function generatedImports(): GeneratedImport[] {
  const found: GeneratedImport[] = [];
  const statement =
    /\bimport\s+(?:type\s+)?(?:\{([^}]*)\}|\*\s+as\s+\w+)\s+from\s+'([^']+)'|\b(?:import|require)\s*\(\s*'([^']+)'/g;
  for (const file of codeFiles()) {
    const text = fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf-8');
    for (const match of text.matchAll(statement)) {
      const specifier = match[2] ?? match[3];
      if (!specifier.startsWith('.')) {
        continue;
      }
      const target = path.resolve(PROJECT_ROOT, path.dirname(file), specifier);
      if (path.dirname(target) === IMPORTS_DIR) {
        const names = (match[1] ?? '')
          .split(',')
          .map((name) =>
            name
              .trim()
              .split(/\s+as\s+/)[0]
              .replace(/^type\s+/, ''),
          )
          .filter((name) => name.length > 0);
        found.push({ file, module: path.basename(target), names });
      }
    }
  }
  return found;
}

/** The names a generated module exports. */
function exportsOf(module: string): Set<string> {
  const text = fs.readFileSync(path.join(IMPORTS_DIR, `${module}.ts`), 'utf-8');
  return new Set([...text.matchAll(/^export (?:class|interface|enum|function|const|type) (\w+)/gm)].map((m) => m[1]));
}

describe('what npm run import generates (scripts/import.js)', () => {
  const generated = ['k8s', ...script.CRDS.map(moduleOf)].sort();
  const imports = generatedImports();

  test('each CRD module holds the one kind it is listed for', () => {
    for (const crd of script.CRDS) {
      const doc = parse(fs.readFileSync(path.join(script.SCHEMAS, crd.file), 'utf-8'));
      expect(`${crd.file}: ${doc.spec.names.kind}`).toBe(`${crd.file}: ${crd.kind}`);
    }
  });

  test('imports/ holds exactly the generated modules (run `npm run import` after changing the lists)', () => {
    const present = fs
      .readdirSync(IMPORTS_DIR)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => name.slice(0, -'.ts'.length))
      .sort();
    expect(present).toEqual(generated);
  });

  test('the code imports only modules and names that are generated', () => {
    const missing: string[] = [];
    for (const { file, module, names } of imports) {
      if (!generated.includes(module)) {
        missing.push(
          `${file} imports imports/${module}, which is not generated: add its CRD to CRDS in scripts/import.js`,
        );
        continue;
      }
      const exported = exportsOf(module);
      for (const name of names.filter((n) => !exported.has(n))) {
        missing.push(
          `${file} imports ${name} from imports/${module}, which is not generated: add its kind to the lists`,
        );
      }
    }
    expect(missing).toEqual([]);
  });

  test('every generated module is imported by the code', () => {
    const unused = generated.filter((module) => !imports.some((i) => i.module === module));
    expect(unused).toEqual([]);
  });

  test('every generated Kubernetes kind is imported by the code', () => {
    const kinds = [...exportsOf('k8s')].filter((name) => /^Kube[A-Z]/.test(name) && !name.endsWith('Props'));
    const used = new Set(imports.filter((i) => i.module === 'k8s').flatMap((i) => i.names));
    expect(kinds.filter((kind) => !used.has(kind))).toEqual([]);
    expect(kinds).toHaveLength(script.K8S_KINDS.length);
  });
});
