import { Spread } from './measure';

/** What was measured. The values are the names in the table and in results.json. */
export enum BenchCase {
  /** `cdk8s-compose convert -o DIR` of a generated app, end to end. */
  CONVERT = 'convert',
  /** loadCompose, ComposeApp on the model and App.synth() of a generated app, in one Node process. */
  LIBRARY = 'library-synth',
  /** `npm run synth` of the reference app (compile check included). */
  NPM_RUN_SYNTH = 'npm-run-synth',
  /** `cdk8s synth --no-check-upgrade` of the reference app, as users run it. */
  CDK8S_SYNTH = 'cdk8s-synth',
  /**
   * cdk8s and cdk8s-plus-27 alone making, resolving and writing as many objects of each kind as `convert` writes for
   * the same app, started as the CLI is (bench/stack-floor.ts): the part of the time that is the stack's.
   */
  STACK_FLOOR = 'stack-floor',
  /**
   * cdk8s alone resolving, printing and writing the very manifests `convert` wrote for the same app, each an
   * `ApiObject` as it is (bench/stack-floor.ts): the stack's part of the time for this content.
   */
  CDK8S_FLOOR = 'cdk8s-floor',
  /** `npm test`, the whole suite, once. */
  NPM_TEST = 'npm-test',
}

/** The figures of one case at one size. */
export interface CaseResult {
  readonly case: BenchCase;
  /** Services in the generated app; undefined for the reference app and the test suite. */
  readonly size?: number;
  readonly runs: number;
  readonly wallSeconds: Spread;
  /** User plus system CPU time of the process tree. */
  readonly cpuSeconds: Spread;
  /** Peak RSS of the largest process of the tree, MiB. */
  readonly rssMiB: Spread;
  /** Medians of the in-process phases, seconds (library-synth and the floors). */
  readonly phases?: Readonly<Record<string, number>>;
}

/** Median wall time ratios between the sizes of one case. */
export interface Growth {
  readonly case: BenchCase;
  /** t(100) / t(10). */
  readonly from10To100?: number;
  /** t(1000) / t(100). */
  readonly from100To1000?: number;
}

/** One target of issue 7 checked against the results. */
export interface TargetCheck {
  readonly target: string;
  /** The measured value, in `unit`; undefined when the case was not measured. */
  readonly value?: number;
  readonly limit: number;
  readonly unit: string;
  /** undefined when not measured. */
  readonly met?: boolean;
}

/** The machine the results come from. */
export interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  /** 1-minute load average before and after the bench: other work on the machine inflates wall times. */
  readonly loadAverage: { readonly before: number; readonly after: number };
  /** Where the generated apps and outputs were written. */
  readonly scratchFolder: string;
  /** Median milliseconds to create a small file there. */
  readonly fileCreateMs: number;
}

/** Everything `npm run bench` writes to results.json. */
export interface BenchResults {
  readonly machine: Machine;
  readonly settings: {
    readonly runs: number;
    readonly warmup: number;
    readonly seed: number;
    readonly meter: string;
    /** The commit measured, and whether the measured files (lib/, bin/, bench/, …) had uncommitted changes. */
    readonly commit: string;
    readonly dirty: boolean;
  };
  readonly results: readonly CaseResult[];
  readonly growth: readonly Growth[];
  readonly targets: readonly TargetCheck[];
}

const MB = 1e6 / 2 ** 20;

/** The targets, checked against the measured results. */
export function checkTargets(results: readonly CaseResult[], growth: readonly Growth[]): TargetCheck[] {
  const find = (c: BenchCase, size?: number) => results.find((r) => r.case === c && r.size === size);
  const check = (target: string, value: number | undefined, limit: number, unit: string): TargetCheck => ({
    target,
    value,
    limit,
    unit,
    met: value === undefined ? undefined : value <= limit,
  });
  const convertGrowth = growth.find((g) => g.case === BenchCase.CONVERT);
  return [
    // Issue 14's targets (kompose's figures on the same machine: 0.06 s for 10 services, 1.70 s and 379 MB for 1,000).
    check('convert, 10 services: median wall', find(BenchCase.CONVERT, 10)?.wallSeconds.median, 0.15, 's'),
    check(
      'convert, 10 services: peak RSS (250 MB)',
      find(BenchCase.CONVERT, 10)?.rssMiB.max,
      round(250 * MB, 1),
      'MiB',
    ),
    check('npm run synth, reference app: median wall', find(BenchCase.NPM_RUN_SYNTH)?.wallSeconds.median, 1.5, 's'),
    check('convert, 1,000 services: median wall', find(BenchCase.CONVERT, 1000)?.wallSeconds.median, 1.7, 's'),
    check(
      'convert, 1,000 services: peak RSS (300 MB)',
      find(BenchCase.CONVERT, 1000)?.rssMiB.max,
      round(300 * MB, 1),
      'MiB',
    ),
    check('convert growth t(1000)/t(100)', convertGrowth?.from100To1000, 12, '×'),
    check('library synth, 1,000 services: median wall', find(BenchCase.LIBRARY, 1000)?.wallSeconds.median, 3, 's'),
    check('npm test, whole suite: wall', find(BenchCase.NPM_TEST)?.wallSeconds.median, 60, 's'),
  ];
}

/** Growth ratios of the median wall times, for the cases measured at several sizes. */
export function growthOf(results: readonly CaseResult[]): Growth[] {
  const cases = [...new Set(results.filter((r) => r.size !== undefined).map((r) => r.case))];
  return cases.map((c) => {
    const at = (size: number) => results.find((r) => r.case === c && r.size === size)?.wallSeconds.median;
    const ratio = (a?: number, b?: number) => (a === undefined || b === undefined ? undefined : round(b / a, 2));
    return { case: c, from10To100: ratio(at(10), at(100)), from100To1000: ratio(at(100), at(1000)) };
  });
}

/** The results as JSON text, keys in a fixed order, figures rounded (ms, 0.1 MiB). */
export function resultsJson(results: BenchResults): string {
  const spreadOf = (s: Spread, digits: number) => ({
    min: round(s.min, digits),
    median: round(s.median, digits),
    max: round(s.max, digits),
  });
  const ordered = {
    machine: {
      cpus: results.machine.cpus,
      cpuModel: results.machine.cpuModel,
      memoryGiB: round(results.machine.memoryGiB, 1),
      node: results.machine.node,
      platform: results.machine.platform,
      loadAverage: {
        before: round(results.machine.loadAverage.before, 2),
        after: round(results.machine.loadAverage.after, 2),
      },
      scratchFolder: results.machine.scratchFolder,
      fileCreateMs: round(results.machine.fileCreateMs, 3),
    },
    settings: {
      runs: results.settings.runs,
      warmup: results.settings.warmup,
      seed: results.settings.seed,
      meter: results.settings.meter,
      commit: results.settings.commit,
      dirty: results.settings.dirty,
    },
    results: results.results.map((r) => ({
      case: r.case,
      size: r.size,
      runs: r.runs,
      wallSeconds: spreadOf(r.wallSeconds, 3),
      cpuSeconds: spreadOf(r.cpuSeconds, 3),
      rssMiB: spreadOf(r.rssMiB, 1),
      phases: r.phases,
    })),
    growth: results.growth.map((g) => ({ case: g.case, from10To100: g.from10To100, from100To1000: g.from100To1000 })),
    targets: results.targets.map((t) => ({
      target: t.target,
      value: t.value,
      limit: t.limit,
      unit: t.unit,
      met: t.met,
    })),
  };
  return `${JSON.stringify(ordered, undefined, 2)}\n`;
}

/** The results as text tables, with the baseline's median wall time and peak RSS beside each result when given. */
export function formatReport(results: BenchResults, baseline?: BenchResults): string {
  const lines: string[] = [];
  const base = (r: CaseResult) => baseline?.results.find((b) => b.case === r.case && b.size === r.size);
  const change = (now: number, before: number) => `${now >= before ? '+' : ''}${Math.round((now / before - 1) * 100)}%`;
  const rows = results.results.map((r) => {
    const b = base(r);
    return [
      r.case,
      r.size === undefined ? 'ref' : String(r.size),
      String(r.runs),
      `${fixed(r.wallSeconds.min, 3)} / ${fixed(r.wallSeconds.median, 3)} / ${fixed(r.wallSeconds.max, 3)}`,
      fixed(r.cpuSeconds.median, 3),
      fixed(r.rssMiB.max, 1),
      b ? `${fixed(b.wallSeconds.median, 3)} → ${change(r.wallSeconds.median, b.wallSeconds.median)}` : '-',
      b ? `${fixed(b.rssMiB.max, 1)} → ${change(r.rssMiB.max, b.rssMiB.max)}` : '-',
    ];
  });
  lines.push(
    ...table(
      [
        'case',
        'size',
        'runs',
        'wall s min / median / max',
        'cpu s med',
        'RSS MiB max',
        'baseline wall',
        'baseline RSS',
      ],
      rows,
      1,
    ),
  );

  for (const c of [...new Set(results.results.filter((r) => r.phases).map((r) => r.case))]) {
    const phased = results.results.filter((r) => r.case === c && r.phases);
    const keys = Object.keys(phased[0].phases!);
    lines.push(
      '',
      ...table(
        [`${c} phases (median s)`, ...keys],
        phased.map((r) => [String(r.size), ...keys.map((k) => fixed(r.phases![k], 3))]),
        1,
      ),
    );
  }
  lines.push(...againstFloor(results.results));
  if (results.growth.length > 0) {
    const ratio = (value?: number) => (value === undefined ? '-' : `${fixed(value, 2)}×`);
    lines.push(
      '',
      ...table(
        ['growth (median wall)', 't(100)/t(10)', 't(1000)/t(100)'],
        results.growth.map((g) => [g.case, ratio(g.from10To100), ratio(g.from100To1000)]),
        1,
      ),
    );
  }
  lines.push(
    '',
    ...table(
      ['target', 'measured', 'limit', ''],
      results.targets.map((t) => [
        t.target,
        t.value === undefined ? '-' : `${fixed(t.value, t.unit === 's' ? 3 : t.unit === '×' ? 2 : 1)} ${t.unit}`,
        `≤ ${t.limit} ${t.unit}`,
        t.met === undefined ? 'not measured' : t.met ? 'met' : 'MISSED',
      ]),
      1,
    ),
  );
  const m = results.machine;
  lines.push(
    '',
    `${m.cpus} × ${m.cpuModel}, ${fixed(m.memoryGiB, 1)} GiB, Node ${m.node}, ${m.platform}; ` +
      `load average ${fixed(m.loadAverage.before, 2)} before, ${fixed(m.loadAverage.after, 2)} after; ` +
      `scratch in ${m.scratchFolder} (${fixed(m.fileCreateMs, 3)} ms per new file); ` +
      `${results.settings.runs} runs after ${results.settings.warmup} warm-up, meter ${results.settings.meter}, ` +
      `commit ${results.settings.commit.slice(0, 12)}${results.settings.dirty ? ' with uncommitted changes to the measured files' : ''}`,
  );
  if (baseline) {
    lines.push(
      `baseline: commit ${baseline.settings.commit.slice(0, 12)}, load average ${fixed(baseline.machine.loadAverage.before, 2)}, ` +
        `scratch in ${baseline.machine.scratchFolder} (${fixed(baseline.machine.fileCreateMs, 3)} ms per new file)`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * For each size with a floor, convert and library-synth beside the higher of the two floors, and what is left above
 * it: this library's own work, and the most any change to it could win. A floor leaves out its `load` phase (reading
 * its input, which the real work does not have); `convert`'s leaves out the `yaml` phase too, as `convert` prints with
 * a printer of its own, while the library synth prints with cdk8s's.
 */
function againstFloor(results: readonly CaseResult[]): string[] {
  const find = (c: BenchCase, size?: number) => results.find((r) => r.case === c && r.size === size);
  const floorOf = (r: CaseResult | undefined, printing: boolean) =>
    r === undefined ? undefined : r.wallSeconds.median - (r.phases?.load ?? 0) - (printing ? 0 : (r.phases?.yaml ?? 0));
  const sizes = [
    ...new Set(
      results.filter((r) => r.case === BenchCase.STACK_FLOOR || r.case === BenchCase.CDK8S_FLOOR).map((r) => r.size),
    ),
  ];
  const rows = sizes.map((size) => {
    const floors = [find(BenchCase.STACK_FLOOR, size), find(BenchCase.CDK8S_FLOOR, size)];
    const cell = (c: BenchCase, printing: boolean) => {
      const value = find(c, size)?.wallSeconds.median;
      const floor = Math.max(...floors.map((f) => floorOf(f, printing) ?? 0));
      return value === undefined ? '-' : `${fixed(value, 3)} (floor ${fixed(floor, 3)}, +${fixed(value - floor, 3)})`;
    };
    const both = (f: CaseResult | undefined) =>
      f === undefined ? '-' : `${fixed(floorOf(f, false)!, 3)} / ${fixed(floorOf(f, true)!, 3)}`;
    return [
      String(size),
      both(floors[0]),
      both(floors[1]),
      cell(BenchCase.CONVERT, false),
      cell(BenchCase.LIBRARY, true),
    ];
  });
  const header = [
    'against the floors (median wall s)',
    'stack-floor no yaml / all',
    'cdk8s-floor no yaml / all',
    'convert',
    'library-synth',
  ];
  return rows.length === 0 ? [] : ['', ...table(header, rows, 1)];
}

/** Text columns: the first `textColumns` left-aligned, the others right-aligned. */
function table(header: readonly string[], rows: readonly (readonly string[])[], textColumns: number): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i < textColumns ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function fixed(value: number, digits: number): string {
  return value.toFixed(digits);
}
