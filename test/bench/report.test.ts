import { Spread } from '../../bench/measure';
import {
  BenchCase,
  BenchResults,
  CaseResult,
  checkTargets,
  formatReport,
  growthOf,
  resultsJson,
} from '../../bench/report';

const s = (median: number, min = median, max = median): Spread => ({ min, median, max });

function result(c: BenchCase, size: number | undefined, wall: number, rss = 100): CaseResult {
  return {
    case: c,
    size,
    runs: 3,
    wallSeconds: s(wall, wall * 0.9, wall * 1.1),
    cpuSeconds: s(wall * 0.8),
    rssMiB: s(rss),
  };
}

function bench(results: CaseResult[], commit = 'a'.repeat(40)): BenchResults {
  const growth = growthOf(results);
  return {
    machine: {
      cpus: 2,
      cpuModel: 'AMD EPYC',
      memoryGiB: 23.54,
      node: 'v20.20.2',
      platform: 'linux x64',
      loadAverage: { before: 0.5, after: 0.75 },
      scratchFolder: '/var/tmp',
      fileCreateMs: 0.0523,
    },
    settings: { runs: 3, warmup: 1, seed: 1, meter: 'time', commit, dirty: false },
    results,
    growth,
    targets: checkTargets(results, growth),
  };
}

const MEASURED = [
  result(BenchCase.CONVERT, 10, 0.8, 120),
  result(BenchCase.CONVERT, 100, 1.6, 150),
  result(BenchCase.CONVERT, 1000, 8, 400),
  result(BenchCase.LIBRARY, 10, 0.5),
  result(BenchCase.LIBRARY, 100, 1.2),
  result(BenchCase.NPM_RUN_SYNTH, undefined, 1.4),
];

describe('growthOf', () => {
  test('divides the median wall times of neighbouring sizes, per case', () => {
    expect(growthOf(MEASURED)).toEqual([
      { case: BenchCase.CONVERT, from10To100: 2, from100To1000: 5 },
      { case: BenchCase.LIBRARY, from10To100: 2.4, from100To1000: undefined },
    ]);
  });
});

describe('checkTargets', () => {
  test('marks each target met, missed, or not measured', () => {
    const targets = checkTargets(MEASURED, growthOf(MEASURED));
    expect(targets.map((t) => [t.target, t.value, t.met])).toEqual([
      ['convert, 10 services: median wall', 0.8, false],
      ['convert, 10 services: peak RSS (250 MB)', 120, true],
      ['npm run synth, reference app: median wall', 1.4, true],
      ['convert, 1,000 services: median wall', 8, false],
      ['convert, 1,000 services: peak RSS (300 MB)', 400, false],
      ['convert growth t(1000)/t(100)', 5, true],
      ['library synth, 1,000 services: median wall', undefined, undefined],
      ['npm test, whole suite: wall', undefined, undefined],
    ]);
    expect(targets[1].limit).toBe(238.4);
    expect(targets[4].limit).toBe(286.1);
    expect(
      checkTargets([result(BenchCase.CONVERT, 10, 0.14, 80), result(BenchCase.LIBRARY, 1000, 2.9)], [])
        .filter((t) => t.met !== undefined)
        .map((t) => [t.target, t.met]),
    ).toEqual([
      ['convert, 10 services: median wall', true],
      ['convert, 10 services: peak RSS (250 MB)', true],
      ['library synth, 1,000 services: median wall', true],
    ]);
  });
});

describe('resultsJson', () => {
  test('writes keys in a fixed order and rounds the figures', () => {
    const json = JSON.parse(resultsJson(bench([result(BenchCase.CONVERT, 10, 0.123456, 99.987)])));
    expect(Object.keys(json)).toEqual(['machine', 'settings', 'results', 'growth', 'targets']);
    expect(Object.keys(json.machine)).toEqual([
      'cpus',
      'cpuModel',
      'memoryGiB',
      'node',
      'platform',
      'loadAverage',
      'scratchFolder',
      'fileCreateMs',
    ]);
    expect(json.machine.memoryGiB).toBe(23.5);
    expect(json.results[0]).toEqual({
      case: 'convert',
      size: 10,
      runs: 3,
      wallSeconds: { min: 0.111, median: 0.123, max: 0.136 },
      cpuSeconds: { min: 0.099, median: 0.099, max: 0.099 },
      rssMiB: { min: 100, median: 100, max: 100 },
    });
  });

  test('is the same text for the same results', () => {
    expect(resultsJson(bench(MEASURED))).toBe(resultsJson(bench([...MEASURED])));
  });
});

describe('formatReport', () => {
  test('prints the results, growth and targets, and the change against a baseline', () => {
    const before = bench(
      [result(BenchCase.CONVERT, 10, 1.6, 200), result(BenchCase.CONVERT, 100, 3.2)],
      'b'.repeat(40),
    );
    const text = formatReport(bench(MEASURED), before);
    const line = (start: string | RegExp) =>
      text.split('\n').find((l) => (typeof start === 'string' ? l.startsWith(start) : start.test(l)));
    expect(line('convert          10')).toMatch(
      /0\.720 \/ 0\.800 \/ 0\.880 +0\.640 +120\.0 +1\.600 → -50% +200\.0 → -40%$/,
    );
    expect(line('convert        1000')).toMatch(/ - +-$/);
    expect(line(/^convert +[\d.]+×/)).toMatch(/^convert +2\.00× +5\.00×$/);
    expect(line('convert, 1,000 services: median wall')).toMatch(/8\.000 s +≤ 1\.7 s +MISSED$/);
    expect(line('npm test, whole suite: wall')).toMatch(/- +≤ 60 s +not measured$/);
    expect(text).toContain(`baseline: commit ${'b'.repeat(12)}`);
  });

  test("prints each case's phases, and convert and library-synth against the higher of the floors", () => {
    const phased = (r: CaseResult, phases: Record<string, number>): CaseResult => ({ ...r, phases });
    const floor = (load: number, yaml: number) => ({
      modules: 0.2,
      load,
      construct: 0.5,
      resolve: 0.8,
      yaml,
      write: 0.3,
    });
    const text = formatReport(
      bench([
        result(BenchCase.CONVERT, 10, 0.4),
        result(BenchCase.CONVERT, 1000, 3.5),
        phased(result(BenchCase.LIBRARY, 1000, 4), { modules: 0.3, load: 0.4, construct: 0.7, synth: 2.5 }),
        phased(result(BenchCase.STACK_FLOOR, 10, 0.35), floor(0, 0.1)),
        phased(result(BenchCase.STACK_FLOOR, 1000, 2.8), floor(0, 1)),
        phased(result(BenchCase.CDK8S_FLOOR, 1000, 2.5), floor(0.2, 1.3)),
      ]),
    );
    const lines = text.split('\n');
    const after = (header: RegExp) => lines.slice(lines.findIndex((l) => header.test(l)) + 2);
    expect(after(/^library-synth phases \(median s\) +modules +load +construct +synth$/)[0]).toMatch(
      /^1000 +0\.300 +0\.400 +0\.700 +2\.500$/,
    );
    expect(
      after(/^stack-floor phases \(median s\) +modules +load +construct +resolve +yaml +write$/).slice(0, 2),
    ).toEqual([
      expect.stringMatching(/^10 +0\.200 +0\.000 +0\.500 +0\.800 +0\.100 +0\.300$/),
      expect.stringMatching(/^1000 +0\.200 +0\.000 +0\.500 +0\.800 +1\.000 +0\.300$/),
    ]);
    // A floor without its load phase; convert's without the yaml phase too; each against the higher floor.
    expect(
      after(
        /^against the floors \(median wall s\) +stack-floor no yaml \/ all +cdk8s-floor no yaml \/ all +convert +library-synth$/,
      ).slice(0, 2),
    ).toEqual([
      expect.stringMatching(/^10 +0\.250 \/ 0\.350 +- +0\.400 \(floor 0\.250, \+0\.150\) +-$/),
      expect.stringMatching(
        /^1000 +1\.800 \/ 2\.800 +1\.000 \/ 2\.300 +3\.500 \(floor 1\.800, \+1\.700\) +4\.000 \(floor 2\.800, \+1\.200\)$/,
      ),
    ]);
  });

  test('prints no floor table without a stack-floor result', () => {
    expect(formatReport(bench(MEASURED))).not.toContain('against the floor');
  });
});
