import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as v8 from 'v8';
import { ComposeError, isComposeError } from '../../lib/compose/errors';
import { loadCompose, loadComposeFromString } from '../../lib/compose/load';
import { runBounded } from '../support/bounded';

/**
 * Hostile compose text: alias bombs, very large files, deep nesting and expansion floods are refused with a clear
 * message and bounded memory. Memory is measured in-process around each load: the growth of the used heap and of
 * the heap V8 reserved (which grows to the peak a load needed and does not shrink at once). The bound is generous:
 * the point is that nothing grows with the expanded size, which would be gigabytes.
 */

const MIB = 1024 * 1024;
/** Generous bound on the memory one refused load may take. */
const HEAP_BOUND = 64 * MIB;
/** Bound on the time to a result; a hang fails with the input instead of stalling CI. */
const TIMEOUT_MS = 10_000;

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-hostile-')));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

interface Measured {
  readonly error: ComposeError;
  readonly heapGrowth: number;
  readonly reservedGrowth: number;
}

/** The ComposeError `fn` throws, with the memory it took. */
function refused(fn: () => unknown): Measured {
  const heapBefore = process.memoryUsage().heapUsed;
  const reservedBefore = v8.getHeapStatistics().total_heap_size;
  const outcome = runBounded(fn, TIMEOUT_MS);
  const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
  const reservedGrowth = v8.getHeapStatistics().total_heap_size - reservedBefore;
  if (outcome.kind === 'timeout') {
    throw new Error(`no result within ${TIMEOUT_MS} ms`);
  }
  if (outcome.kind === 'value') {
    throw new Error('the hostile input was accepted');
  }
  if (!isComposeError(outcome.error)) {
    throw outcome.error;
  }
  return { error: outcome.error, heapGrowth, reservedGrowth };
}

function load(text: string) {
  return loadComposeFromString(text, { projectDir: path.join(root, 'none'), env: {} });
}

/** Nine levels of nine aliases each: 9^9 (387 million) values if expanded. */
function listBomb(): string {
  const lines = ['l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i < 9; i += 1) {
    lines.push(
      `l${i}: &l${i} [${Array(9)
        .fill(`*l${i - 1}`)
        .join(', ')}]`,
    );
  }
  return `x-bomb:\n${lines.map((l) => `  ${l}`).join('\n')}\nservices:\n  web:\n    image: nginx\n    command: *l8\n`;
}

/** The same through merge keys: each level merges nine copies of the one below. */
function mergeBomb(): string {
  const lines = ['  m0: &m0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9}'];
  for (let i = 1; i < 9; i += 1) {
    const keys = Array.from({ length: 9 }, (_, k) => `k${k}: *m${i - 1}`).join(', ');
    lines.push(`  m${i}: &m${i} {${keys}}`);
  }
  return `x-bomb:\n${lines.join('\n')}\nservices:\n  web:\n    image: nginx\n    labels:\n      <<: *m8\n`;
}

/** Few aliases (under the alias limit), each expanding a large list. */
function wideBomb(): string {
  return `x-big: &big [${Array(2000).fill('v').join(',')}]\nservices:\n  web:\n    image: nginx\n    command: [${Array(500).fill('*big').join(',')}]\n`;
}

describe('alias bombs', () => {
  test.each([
    ['nested lists', listBomb(), 'the YAML uses more than 1000 aliases'],
    ['merge keys', mergeBomb(), 'the YAML uses more than 1000 aliases'],
    [
      'a few aliases of a large list',
      wideBomb(),
      'the YAML expands to more than 100000 values through anchors and aliases',
    ],
  ])('%s: refused with a clear message and bounded memory', (_shape, text, problem) => {
    const { error, heapGrowth, reservedGrowth } = refused(() => load(text));
    expect(error.problem).toBe(problem);
    expect(error.message).toMatch(
      /^compose\.yaml:\d+:\d+: .*Fix: .*raise the loader's limits\.max(Aliases|Nodes) if the file is genuine\.$/,
    );
    expect(heapGrowth).toBeLessThan(HEAP_BOUND);
    expect(reservedGrowth).toBeLessThan(HEAP_BOUND);
  });

  test('an alias that contains itself is refused', () => {
    expect(refused(() => load('services:\n  web: &w\n    image: nginx\n    x-self: *w\n')).error.problem).toMatch(
      /^alias \*w refers to (a value that contains it|an anchor that is not defined before it)$/,
    );
  });
});

describe('very large input', () => {
  const big = `services:\n  web:\n    image: nginx\n    command: ["${'x'.repeat(3 * MIB)}"]\n`;

  test('a compose file over 2 MiB is refused before it is read, with bounded memory', () => {
    const file = path.join(root, 'large', 'compose.yaml');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // A sparse 1 GiB file: reading it would take a gigabyte.
    fs.writeFileSync(file, 'services:\n');
    fs.truncateSync(file, 1024 * MIB);
    const { error, heapGrowth, reservedGrowth } = refused(() =>
      loadCompose({ workingDir: path.dirname(file), env: {} }),
    );
    expect(error.message).toBe(
      'compose.yaml: the compose file is larger than 2097152 bytes. ' +
        "Fix: raise the loader's limits.maxFileBytes if the file is genuine.",
    );
    expect(heapGrowth).toBeLessThan(8 * MIB);
    expect(reservedGrowth).toBeLessThan(8 * MIB);
  });

  test('compose text over 2 MiB is refused with the same message', () => {
    expect(refused(() => load(big)).error.message).toBe(
      'compose.yaml: the compose file is larger than 2097152 bytes. ' +
        "Fix: raise the loader's limits.maxFileBytes if the file is genuine.",
    );
  });

  test('an env file over 1 MiB is refused', () => {
    const dir = path.join(root, 'large-env');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'big.env'), `A=${'x'.repeat(2 * MIB)}\n`);
    const { error } = refused(() =>
      loadComposeFromString('services:\n  web:\n    image: nginx\n    env_file: big.env\n', {
        projectDir: dir,
        env: {},
      }),
    );
    expect(error.message).toBe('compose.yaml:4:15: services.web.env_file: env file "big.env" is larger than 1 MiB.');
  });
});

describe('nesting and expansion floods', () => {
  test.each([
    ['100000 open brackets', `services: ${'['.repeat(100_000)}`],
    ['100000 open braces', `services: ${'{a: '.repeat(100_000)}`],
    [
      '200 levels of block maps',
      `services:\n${Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i + 1)}k${i}:`).join('\n')}\n`,
    ],
  ])('%s: refused with bounded memory', (_shape, text) => {
    const { error, heapGrowth } = refused(() => load(text));
    expect(error.problem).toMatch(
      /^(the YAML is nested too deeply to parse|the YAML is nested more than 100 levels deep|invalid YAML: .*)$/,
    );
    expect(heapGrowth).toBeLessThan(HEAP_BOUND);
  });

  test('more values than the limit are refused, before parsing when they are over twice the limit in scalars', () => {
    const values = (n: number) =>
      `services:\n  web:\n    image: nginx\n    command: [${Array(n).fill('1').join(',')}]\n`;
    const small = { projectDir: path.join(root, 'none'), env: {}, limits: { maxNodes: 1000 } };
    // No alias in the file: too many values, not an alias bomb.
    expect(refused(() => loadComposeFromString(values(1200), small)).error.problem).toBe(
      'the YAML holds more than 1000 values',
    );
    const { error, heapGrowth } = refused(() => load(values(500_000)));
    expect(error.problem).toBe('the YAML holds more than 200000 keys and values');
    expect(heapGrowth).toBeLessThan(HEAP_BOUND);
  });

  test.each([
    ['block indicators on one line', `services: ${'- '.repeat(300_000)}x\n`],
    ['anchors on nested items on one line', `services: ${'- &a '.repeat(200_000)}x\n`],
    ['aliases on one line', `x-a: &a 1\nservices: ${'*a '.repeat(200_000)}\n`],
    ['implicit keys on one line', `services: ${'"a": '.repeat(200_000)}x\n`],
    ['tags on one line', `services: ${'!t '.repeat(200_000)}x\n`],
  ])('%s: refused before parsing, with bounded memory', (_shape, text) => {
    const { error, heapGrowth } = refused(() => load(text));
    expect(error.problem).toMatch(/^the YAML (is nested more than 100 levels deep|uses more than 1000 aliases)$/);
    expect(heapGrowth).toBeLessThan(HEAP_BOUND);
  });

  test('port ranges across many services are bounded as a whole', () => {
    const services = Array.from({ length: 400 }, (_, i) => `  s${i}: {image: nginx, ports: ["1-9999"]}`).join('\n');
    const { error, heapGrowth } = refused(() => load(`services:\n${services}\n`));
    expect(error.message).toBe(
      'compose.yaml:12:31: services.s10.ports[0]: the services publish and expose more than 20000 ' +
        'ports together (got "1-9999"). Fix: publish fewer or smaller port ranges.',
    );
    expect(heapGrowth).toBeLessThan(HEAP_BOUND);
  });

  test('deeply nested interpolation defaults are refused', () => {
    const text = `services:\n  web:\n    image: nginx\n    command: "${'${A:-'.repeat(20_000)}x${'}'.repeat(20_000)}"\n`;
    const { error } = refused(() => load(text));
    expect(error.message).toBe(
      'compose.yaml:4:14: services.web.command: interpolation nested more than 32 levels deep. ' +
        'Fix: nest ${VAR:-default} defaults a few levels at most.',
    );
  });
});
