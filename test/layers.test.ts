import * as fs from 'fs';
import * as path from 'path';

// Issue 11 §1: the folders of lib/ are layers that point one way. A module may import its own folder and the layers
// below it, never a layer above or beside it:
//   util/ (plain helpers, no imports) → compose/ (loader, model) → base/ (naming, pod defaults, network policy) → stateful/, vm/ → app/ → cli/ → lib/*.ts
// stateful/ and vm/ are siblings: neither imports the other. app/ composes them (ComposeApp builds a
// StatefulDependency and a ComposeVm), so it sits above both. imports/ (generated) and packages are below everything.
// And no two modules import each other, directly or through others (a cycle makes the order of loading matter).

const ROOT = path.resolve(__dirname, '..');
const LIB = path.join(ROOT, 'lib');

/** The layers, lowest first; folders on one rank are siblings. `.` is lib/ itself (index.ts and the charts). */
const RANKS: Readonly<Record<string, number>> = {
  'util': -1,
  'compose': 0,
  'base': 1,
  'stateful': 2,
  'vm': 2,
  'app': 3,
  'cli': 4,
  '.': 5,
};

/** One import: the module that imports and the module imported, both as paths under lib/ without `.ts`. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
}

/** The layer of a module under lib/: its first folder, or `.` for a file directly in lib/. */
function layerOf(module: string): string {
  const slash = module.indexOf('/');
  return slash < 0 ? '.' : module.slice(0, slash);
}

/** The imports that point up or sideways, as `from -> to (why)`. */
export function layerViolations(edges: readonly ImportEdge[]): string[] {
  const found: string[] = [];
  for (const { from, to } of edges) {
    const fromLayer = layerOf(from);
    const toLayer = layerOf(to);
    if (fromLayer === toLayer) {
      continue;
    }
    const fromRank = RANKS[fromLayer];
    const toRank = RANKS[toLayer];
    if (fromRank === undefined || toRank === undefined) {
      found.push(`${from} -> ${to} (a folder with no layer: add it to RANKS in test/layers.test.ts)`);
    } else if (toRank > fromRank) {
      found.push(`${from} -> ${to} (${fromLayer}/ imports ${toLayer}/, a layer above it)`);
    } else if (toRank === fromRank) {
      found.push(`${from} -> ${to} (${fromLayer}/ imports ${toLayer}/, a sibling layer)`);
    }
  }
  return found.sort();
}

/**
 * The import cycles, as `a -> b -> a` starting at the cycle's smallest module: one per import that closes a cycle in
 * a depth-first walk, so none when there are no cycles, and at least one when there are.
 */
export function importCycles(edges: readonly ImportEdge[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    next.set(from, (next.get(from) ?? new Set<string>()).add(to));
  }
  const found = new Set<string>();
  const done = new Set<string>();
  const trail: string[] = [];
  const walk = (module: string) => {
    const at = trail.indexOf(module);
    if (at >= 0) {
      const cycle = trail.slice(at);
      const start = cycle.indexOf([...cycle].sort()[0]);
      const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
      found.add([...rotated, rotated[0]].join(' -> '));
      return;
    }
    if (done.has(module)) {
      return;
    }
    done.add(module);
    trail.push(module);
    for (const target of [...(next.get(module) ?? [])].sort()) {
      walk(target);
    }
    trail.pop();
  };
  for (const module of [...next.keys()].sort()) {
    walk(module);
  }
  return [...found].sort();
}

function libFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? libFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
    })
    .sort();
}

/** The relative specifiers a source imports or re-exports (static, type-only, dynamic and `require`). */
export function importSpecifiers(source: string): string[] {
  const pattern = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)'(\.[^']*)'/gm;
  return [...source.matchAll(pattern)].map((match) => match[1]);
}

/** The imports between modules of lib/ (imports/ and packages are left out: they are below every layer). */
function libImports(): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of libFiles(LIB)) {
    const from = path.relative(LIB, file).replace(/\.ts$/, '');
    for (const specifier of importSpecifiers(fs.readFileSync(file, 'utf8'))) {
      const target = path.resolve(path.dirname(file), specifier);
      const relative = path.relative(LIB, target);
      if (relative.startsWith('..')) {
        continue;
      }
      const to = fs.existsSync(`${target}.ts`) ? relative : path.join(relative, 'index');
      edges.push({ from, to: to.split(path.sep).join('/') });
    }
  }
  return edges;
}

describe('layers', () => {
  const edges = libImports();

  test('reads the imports of every lib/ file', () => {
    expect(libFiles(LIB).length).toBeGreaterThan(90);
    expect(edges.length).toBeGreaterThan(300);
    for (const { to } of edges) {
      expect(fs.existsSync(path.join(LIB, `${to}.ts`))).toBe(true);
    }
  });

  test('no lib/ module imports a layer above or beside its own', () => {
    expect(layerViolations(edges)).toEqual([]);
  });

  test('no import cycles in lib/', () => {
    expect(importCycles(edges)).toEqual([]);
  });

  test('fails on an import that points up or sideways', () => {
    expect(
      layerViolations([
        { from: 'app/compose-app', to: 'stateful/stateful-dependency' },
        { from: 'app/compose-app', to: 'app/settings' },
        { from: 'cli/convert', to: 'app/compose-app' },
        { from: 'stateful/stateful-dependency', to: 'app/naming' },
        { from: 'vm/compose-vm', to: 'stateful/engine' },
        { from: 'compose/load', to: 'base/naming' },
        { from: 'app/x', to: 'tools/y' },
      ]),
    ).toEqual([
      'app/x -> tools/y (a folder with no layer: add it to RANKS in test/layers.test.ts)',
      'compose/load -> base/naming (compose/ imports base/, a layer above it)',
      'stateful/stateful-dependency -> app/naming (stateful/ imports app/, a layer above it)',
      'vm/compose-vm -> stateful/engine (vm/ imports stateful/, a sibling layer)',
    ]);
  });

  test('fails on an import cycle', () => {
    expect(
      importCycles([
        { from: 'cli/render', to: 'cli/runbook' },
        { from: 'cli/runbook', to: 'cli/render' },
        { from: 'cli/convert', to: 'cli/render' },
        { from: 'cli/a', to: 'cli/b' },
        { from: 'cli/b', to: 'cli/c' },
        { from: 'cli/c', to: 'cli/a' },
      ]),
    ).toEqual(['cli/a -> cli/b -> cli/c -> cli/a', 'cli/render -> cli/runbook -> cli/render']);
    expect(
      importCycles([
        { from: 'cli/convert', to: 'cli/render' },
        { from: 'cli/render', to: 'cli/runbook' },
      ]),
    ).toEqual([]);
  });

  test('reads static, type-only, re-exported, side-effect and dynamic imports', () => {
    const source = [
      "import { a } from './a';",
      "import type { B } from '../b/b';",
      "export * from './c';",
      "import './d';",
      "const e = require('./e');",
      "const f = await import('./f');",
      "import * as fs from 'fs';",
    ].join('\n');
    expect(importSpecifiers(source)).toEqual(['./a', '../b/b', './c', './d', './e', './f']);
  });
});
