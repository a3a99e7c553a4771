/**
 * `npm run bench`: measures the CLI's convert, the library synth and `npm run synth` as whole processes, prints a
 * table with growth ratios and the issue's targets, compares with the committed bench/results.json and rewrites it.
 * `npm run bench -- --help` lists the options.
 */
import { execFileSync } from 'child_process';
import * as esbuild from 'esbuild';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from 'util';
import * as ts from 'typescript';
import { COMPOSE_FILE, generateApp, writeApp } from './generate';
import { Command, Meter, Sample, defaultMeter, measure, spread } from './measure';
import { BenchCase, BenchResults, CaseResult, checkTargets, formatReport, growthOf, resultsJson } from './report';
import { CLI_BUNDLE_OPTIONS } from '../scripts/bundle-options';
import { convertedManifests, kindCounts } from './floor-input';

const ROOT = path.resolve(__dirname, '..');
const RESULTS_FILE = 'bench/results.json';
const ALL_CASES = [
  BenchCase.CONVERT,
  BenchCase.LIBRARY,
  BenchCase.STACK_FLOOR,
  BenchCase.CDK8S_FLOOR,
  BenchCase.NPM_RUN_SYNTH,
  BenchCase.CDK8S_SYNTH,
];
/** The files `npm run synth` reads, copied so that the bench never writes into the project's dist/. */
/** What the measured commands run: a change here, not yet committed, makes the results those of a dirty tree. */
const MEASURED_PATHS = [
  'bin',
  'lib',
  'imports',
  'main.ts',
  'examples',
  'package.json',
  'cdk8s.yaml',
  'tsconfig.json',
  'tsconfig.build.json',
  'bench',
];
const SYNTH_INPUTS = [
  'package.json',
  'cdk8s.yaml',
  'tsconfig.json',
  'tsconfig.build.json',
  'main.ts',
  'lib',
  'imports',
  'examples',
  'build',
];

const HELP = `Usage: npm run bench -- [options]

  --runs N         measured runs per case and size (env BENCH_RUNS; default 5, quick 2)
  --warmup N       unmeasured runs first (env BENCH_WARMUP; default 1, quick 0)
  --sizes LIST     services in the generated apps (default 10,100,1000; quick 10,100; 10000 is the loader's cap)
  --cases LIST     ${ALL_CASES.join(', ')}, ${BenchCase.NPM_TEST} (default all but ${BenchCase.NPM_TEST}; quick skips ${BenchCase.CDK8S_SYNTH})
  --seed N         seed of the generated apps (default 1)
  --meter NAME     ${Meter.GNU_TIME} (GNU time) or ${Meter.NODE} (Node preload) (default: ${Meter.GNU_TIME} when installed)
  --quick          fewer runs and sizes, for a fast look (env BENCH_QUICK=1); writes no results unless --write
  --write          write ${RESULTS_FILE} (the default without --quick)
  --no-write       do not write ${RESULTS_FILE}
  --tmpdir DIR     where the scratch folder goes (env BENCH_TMPDIR; default the system's temporary folder)
  --keep           keep the scratch folder (generated apps and outputs) and print where it is
`;

interface Settings {
  readonly runs: number;
  readonly warmup: number;
  readonly sizes: readonly number[];
  readonly cases: readonly BenchCase[];
  readonly seed: number;
  readonly meter: Meter;
  readonly write: boolean;
  readonly tmpdir: string;
  readonly keep: boolean;
}

function settingsFrom(argv: readonly string[], env: NodeJS.ProcessEnv): Settings | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'runs': { type: 'string' },
      'warmup': { type: 'string' },
      'sizes': { type: 'string' },
      'cases': { type: 'string' },
      'seed': { type: 'string' },
      'meter': { type: 'string' },
      'quick': { type: 'boolean' },
      'write': { type: 'boolean' },
      'no-write': { type: 'boolean' },
      'tmpdir': { type: 'string' },
      'keep': { type: 'boolean' },
      'help': { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return undefined;
  }
  const quick = values.quick ?? env.BENCH_QUICK === '1';
  const count = (name: string, text: string | undefined, fallback: number, least: number) => {
    if (text === undefined) {
      return fallback;
    }
    const n = Number(text);
    if (!(Number.isInteger(n) && n >= least)) {
      throw new Error(`--${name} must be a whole number, ${least} or more; got "${text}"`);
    }
    return n;
  };
  const sizes = (values.sizes ?? (quick ? '10,100' : '10,100,1000'))
    .split(',')
    .map((s) => count('sizes', s.trim(), 0, 3));
  const cases =
    values.cases?.split(',').map((c) => c.trim()) ?? ALL_CASES.filter((c) => !(quick && c === BenchCase.CDK8S_SYNTH));
  const known = [...ALL_CASES, BenchCase.NPM_TEST] as string[];
  const unknown = cases.filter((c) => !known.includes(c));
  if (unknown.length > 0) {
    throw new Error(`--cases: unknown ${unknown.join(', ')}; allowed: ${known.join(', ')}`);
  }
  const meter = values.meter ?? defaultMeter();
  if (!(Object.values(Meter) as string[]).includes(meter)) {
    throw new Error(`--meter must be ${Object.values(Meter).join(' or ')}; got "${meter}"`);
  }
  return {
    runs: count('runs', values.runs ?? env.BENCH_RUNS, quick ? 2 : 5, 1),
    warmup: count('warmup', values.warmup ?? env.BENCH_WARMUP, quick ? 0 : 1, 0),
    sizes: [...new Set(sizes)].sort((a, b) => a - b),
    cases: cases as BenchCase[],
    seed: count('seed', values.seed, 1, 0),
    meter: meter as Meter,
    write: values['no-write'] ? false : (values.write ?? !quick),
    tmpdir: path.resolve(values.tmpdir ?? env.BENCH_TMPDIR ?? os.tmpdir()),
    keep: values.keep ?? false,
  };
}

/** One case at one size: the command, and what runs untimed before each run of it. */
interface Job {
  readonly label: string;
  readonly case: BenchCase;
  readonly size?: number;
  readonly command: Command;
  readonly prepare: () => void;
}

/**
 * The runs of every job, interleaved: a warm-up round of each job, then each measured round runs each job once. This
 * VM's speed drifts by a third within minutes, so a case measured after another, all its runs together, was measured
 * on another machine; in rounds, every case sees the same drift.
 */
function runJobs(jobs: readonly Job[], settings: Settings, scratch: string, runs: number, warmup: number): Sample[][] {
  const samples = jobs.map((): Sample[] => []);
  for (let round = 0; round < warmup + runs; round++) {
    jobs.forEach((job, j) => {
      job.prepare();
      const sample = measure(job.command, settings.meter, scratch);
      if (round >= warmup) {
        samples[j].push(sample);
      }
      process.stderr.write(
        `  ${job.label}: ${round < warmup ? 'warm-up' : `run ${round - warmup + 1}/${runs}`} ` +
          `${sample.wallSeconds.toFixed(3)} s, ${(sample.rssBytes / 2 ** 20).toFixed(1)} MiB\n`,
      );
    });
  }
  return samples;
}

function resultOf(c: BenchCase, size: number | undefined, samples: readonly Sample[]): CaseResult {
  let phases: Record<string, number> | undefined;
  if (c === BenchCase.LIBRARY || c === BenchCase.STACK_FLOOR || c === BenchCase.CDK8S_FLOOR) {
    const reported = samples.map((s) => JSON.parse(s.stdout) as Record<string, number>);
    phases = Object.fromEntries(
      Object.keys(reported[0]).map((key) => [key, spread(reported.map((p) => p[key])).median]),
    );
  }
  return {
    case: c,
    size,
    runs: samples.length,
    wallSeconds: spread(samples.map((s) => s.wallSeconds)),
    cpuSeconds: spread(samples.map((s) => s.cpuSeconds)),
    rssMiB: spread(samples.map((s) => s.rssBytes / 2 ** 20)),
    phases,
  };
}

/** A copy of what `npm run synth` reads, timestamps kept so that `tsc -b` finds the compiled output up to date. */
function copyForSynth(scratch: string): string {
  const copy = path.join(scratch, 'synth-project');
  for (const entry of SYNTH_INPUTS) {
    fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true, preserveTimestamps: true });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  return copy;
}

/** bench/library-synth.ts and the phases it prints with as JavaScript in the scratch folder: it compiles nothing. */
function transpileLibrarySynth(scratch: string): string {
  for (const name of ['library-synth', 'phases']) {
    const source = fs.readFileSync(path.join(__dirname, `${name}.ts`), 'utf-8');
    const output = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    });
    fs.writeFileSync(path.join(scratch, `${name}.js`), output.outputText);
  }
  return path.join(scratch, 'library-synth.js');
}

/**
 * bench/stack-floor.ts bundled as the CLI is (esbuild, the CLI's options without its ASCII check) into the scratch
 * folder, and a runner that loads it through bin/cdk8s-compose's loader, with its V8 code cache once a training run
 * made one (BENCH_FLOOR_TRAIN: the argument lists of the runs to train on, as JSON). The runner takes the floor's
 * arguments: <kinds|manifests> <input JSON file> <output folder>.
 */
function bundleFloor(scratch: string): string {
  const bundle = path.join(scratch, 'stack-floor.js');
  esbuild.buildSync({
    stdin: { contents: "module.exports = require('./stack-floor');", resolveDir: __dirname, loader: 'js' },
    ...CLI_BUNDLE_OPTIONS,
    outfile: bundle,
    logLevel: 'warning',
  });
  const runner = path.join(scratch, 'stack-floor-runner.js');
  fs.writeFileSync(
    runner,
    `const fs = require('fs');
const { load } = require(${JSON.stringify(path.join(ROOT, 'bin', 'cdk8s-compose'))});
const bundle = load(${JSON.stringify(bundle)});
const training = process.env.BENCH_FLOOR_TRAIN;
for (const args of training ? JSON.parse(training) : [process.argv.slice(2)]) {
  bundle.exports.main(args);
}
if (training) {
  fs.writeFileSync(${JSON.stringify(`${bundle}.cache`)}, bundle.codeCache());
}
`,
  );
  return runner;
}

/**
 * The floors' inputs for the app in `dir`, from one conversion (not timed): the kinds and counts of the objects
 * `convert` writes, and the manifests themselves.
 */
function floorInputs(scratch: string, cli: string, dir: string, out: string, size: number) {
  fs.rmSync(out, { recursive: true, force: true });
  execFileSync(process.execPath, [cli, 'convert', '-f', COMPOSE_FILE, '-o', out], { cwd: dir, stdio: 'ignore' });
  const manifests = convertedManifests(out);
  const write = (name: string, value: unknown) => {
    const file = path.join(scratch, `${name}-${size}.json`);
    fs.writeFileSync(file, `${JSON.stringify(value)}\n`);
    return file;
  };
  return { kinds: write('kinds', kindCounts(manifests)), manifests: write('manifests', manifests) };
}

/**
 * Milliseconds to create one small file in the scratch folder (median of 400). The outputs are thousands of files, and
 * some file systems (or folders: /tmp on some VMs) create files 20 times slower than others.
 */
function fileCreateCost(scratch: string): number {
  const dir = fs.mkdtempSync(path.join(scratch, 'probe-'));
  const times: number[] = [];
  for (let i = 0; i < 400; i++) {
    const start = process.hrtime.bigint();
    fs.writeFileSync(path.join(dir, `${i}.yaml`), 'x'.repeat(1024));
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return spread(times).median;
}

function git(...args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf-8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** The committed results (HEAD), else the file on disk, else none. */
function readBaseline(): BenchResults | undefined {
  const text =
    git('show', `HEAD:${RESULTS_FILE}`) ||
    (fs.existsSync(path.join(ROOT, RESULTS_FILE)) ? fs.readFileSync(path.join(ROOT, RESULTS_FILE), 'utf-8') : '');
  return text ? (JSON.parse(text) as BenchResults) : undefined;
}

function main(): void {
  const settings = settingsFrom(process.argv.slice(2), process.env);
  if (!settings) {
    return;
  }
  const cli = path.join(ROOT, 'bin', 'cdk8s-compose');
  if (!fs.existsSync(path.join(ROOT, 'build', 'bin', 'cdk8s-compose.js'))) {
    throw new Error('build/ is missing: run "npm run compile" first (npm run bench does)');
  }
  const loadBefore = os.loadavg()[0];
  const scratch = fs.mkdtempSync(path.join(settings.tmpdir, 'cdk8s-compose-bench-'));
  const results: CaseResult[] = [];
  let fileCreateMs = 0;
  try {
    fileCreateMs = fileCreateCost(scratch);
    const apps = new Map(
      settings.sizes.map((size) => {
        const dir = path.join(scratch, `app-${size}`);
        writeApp(dir, generateApp({ services: size, seed: settings.seed }));
        return [size, dir] as const;
      }),
    );
    const out = path.join(scratch, 'out');
    const clearOut = () => fs.rmSync(out, { recursive: true, force: true });
    const node = process.execPath;

    const jobs: Job[] = [];
    if (settings.cases.includes(BenchCase.CONVERT)) {
      for (const [size, dir] of apps) {
        const command = { file: node, args: [cli, 'convert', '-f', COMPOSE_FILE, '-o', out], cwd: dir };
        jobs.push({ label: `convert ${size}`, case: BenchCase.CONVERT, size, command, prepare: clearOut });
      }
    }
    if (settings.cases.includes(BenchCase.LIBRARY)) {
      const script = transpileLibrarySynth(scratch);
      for (const [size, dir] of apps) {
        const command = { file: node, args: [script, ROOT, dir, out], cwd: dir };
        jobs.push({ label: `library-synth ${size}`, case: BenchCase.LIBRARY, size, command, prepare: clearOut });
      }
    }
    const floors = [BenchCase.STACK_FLOOR, BenchCase.CDK8S_FLOOR].filter((c) => settings.cases.includes(c));
    if (floors.length > 0) {
      const runner = bundleFloor(scratch);
      let trained = false;
      for (const [size, dir] of apps) {
        const inputs = floorInputs(scratch, cli, dir, out, size);
        const args: Record<string, string[]> = {
          [BenchCase.STACK_FLOOR]: ['kinds', inputs.kinds, out],
          [BenchCase.CDK8S_FLOOR]: ['manifests', inputs.manifests, out],
        };
        if (!trained) {
          // The code cache, made by runs on the smallest app, as the CLI's is made by a small conversion.
          const training = JSON.stringify(floors.map((c) => args[c]));
          execFileSync(node, [runner], { env: { ...process.env, BENCH_FLOOR_TRAIN: training }, stdio: 'ignore' });
          trained = true;
        }
        for (const c of floors) {
          const command = { file: node, args: [runner, ...args[c]], cwd: dir };
          jobs.push({ label: `${c} ${size}`, case: c, size, command, prepare: clearOut });
        }
      }
    }
    const synthCases = [BenchCase.NPM_RUN_SYNTH, BenchCase.CDK8S_SYNTH].filter((c) => settings.cases.includes(c));
    if (synthCases.length > 0) {
      const copy = copyForSynth(scratch);
      const clearDist = () => fs.rmSync(path.join(copy, 'dist'), { recursive: true, force: true });
      const commands: Record<string, Command> = {
        [BenchCase.NPM_RUN_SYNTH]: { file: 'npm', args: ['run', 'synth'], cwd: copy },
        [BenchCase.CDK8S_SYNTH]: {
          file: path.join(ROOT, 'node_modules', '.bin', 'cdk8s'),
          args: ['synth', '--no-check-upgrade'],
          cwd: copy,
        },
      };
      for (const c of synthCases) {
        jobs.push({ label: c, case: c, command: commands[c], prepare: clearDist });
      }
    }
    runJobs(jobs, settings, scratch, settings.runs, settings.warmup).forEach((samples, j) =>
      results.push(resultOf(jobs[j].case, jobs[j].size, samples)),
    );
    if (settings.cases.includes(BenchCase.NPM_TEST)) {
      // Once, in the project itself: the suite is the measurement.
      const command = { file: 'npm', args: ['test', '--silent'], cwd: ROOT };
      const job = { label: BenchCase.NPM_TEST, case: BenchCase.NPM_TEST, command, prepare: () => undefined };
      results.push(resultOf(BenchCase.NPM_TEST, undefined, runJobs([job], settings, scratch, 1, 0)[0]));
    }
  } finally {
    if (settings.keep) {
      process.stderr.write(`scratch folder kept: ${scratch}\n`);
    } else {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }

  const growth = growthOf(results);
  const cpu = os.cpus();
  const bench: BenchResults = {
    machine: {
      cpus: cpu.length,
      cpuModel: cpu[0]?.model.trim() ?? 'unknown',
      memoryGiB: os.totalmem() / 2 ** 30,
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      loadAverage: { before: loadBefore, after: os.loadavg()[0] },
      scratchFolder: settings.tmpdir,
      fileCreateMs,
    },
    settings: {
      runs: settings.runs,
      warmup: settings.warmup,
      seed: settings.seed,
      meter: settings.meter,
      commit: git('rev-parse', 'HEAD') || 'unknown',
      dirty: git('status', '--porcelain', '--', ...MEASURED_PATHS) !== '',
    },
    results,
    growth,
    targets: checkTargets(results, growth),
  };
  process.stdout.write(formatReport(bench, readBaseline()));
  if (settings.write) {
    fs.writeFileSync(path.join(ROOT, RESULTS_FILE), resultsJson(bench));
    process.stdout.write(`wrote ${RESULTS_FILE}\n`);
  }
}

try {
  main();
} catch (err) {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
