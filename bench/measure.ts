import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

/** How the peak RSS and CPU time of a child process tree are read. */
export enum Meter {
  /** GNU time (`/usr/bin/time -f`, Debian's `time` package): the rusage of the waited-for process tree. */
  GNU_TIME = 'time',
  /** A module preloaded into every Node process of the tree (NODE_OPTIONS) that records its own resource usage. */
  NODE = 'node',
}

/** One measured run of a command. */
export interface Sample {
  /** Wall time, seconds. */
  readonly wallSeconds: number;
  /** User plus system CPU time, seconds. */
  readonly cpuSeconds: number;
  /** Peak resident set size of the largest process of the tree, bytes. */
  readonly rssBytes: number;
  /** What the command printed on stdout. */
  readonly stdout: string;
}

/** A command to measure. */
export interface Command {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
}

const GNU_TIME = '/usr/bin/time';

/** GNU time when it is installed (it understands `-f` and `-o`), else the Node preload. */
export function defaultMeter(): Meter {
  const probe = spawnSync(GNU_TIME, ['-f', '%M', 'true'], { encoding: 'utf-8' });
  return probe.status === 0 && /^\d+\s*$/m.test(probe.stderr) ? Meter.GNU_TIME : Meter.NODE;
}

/**
 * Runs a command once as a whole process and measures it. The wall time is taken around the spawn; the peak RSS is
 * that of the largest single process in the tree (what `ru_maxrss` reports), not a sum. Throws when the command fails.
 */
export function measure(command: Command, meter: Meter, scratch: string): Sample {
  const report = path.join(scratch, 'meter.txt');
  fs.rmSync(report, { force: true });
  let file = command.file;
  let args = [...command.args];
  let env = { ...process.env, ...command.env };
  if (meter === Meter.GNU_TIME) {
    args = ['-f', '%e %U %S %M', '-o', report, file, ...args];
    file = GNU_TIME;
  } else {
    env = {
      ...env,
      NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require ${writeProbe(scratch)}`.trim(),
      BENCH_METER_FILE: report,
    };
  }
  const start = process.hrtime.bigint();
  const result = spawnSync(file, args, { cwd: command.cwd, env, encoding: 'utf-8', maxBuffer: 256 * 1024 * 1024 });
  const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.error || result.status !== 0) {
    throw new Error(
      `${[command.file, ...command.args].join(' ')} (in ${command.cwd}) failed: ` +
        `${result.error?.message ?? `exit ${result.status}`}\n${result.stderr?.slice(-4000) ?? ''}`,
    );
  }
  const lines = fs.readFileSync(report, 'utf-8').trim().split('\n');
  if (meter === Meter.GNU_TIME) {
    // GNU time writes "Command exited with non-zero status" lines first on failure; the figures are the last line.
    const [, user, system, maxRssKib] = lines[lines.length - 1].split(' ').map(Number);
    return { wallSeconds, cpuSeconds: user + system, rssBytes: maxRssKib * 1024, stdout: result.stdout };
  }
  const usages = lines.map((line) => line.split(' ').map(Number));
  return {
    wallSeconds,
    cpuSeconds: usages.reduce((sum, [cpuMicros]) => sum + cpuMicros, 0) / 1e6,
    rssBytes: Math.max(...usages.map(([, maxRssKib]) => maxRssKib)) * 1024,
    stdout: result.stdout,
  };
}

/** The preload of the Node meter: appends "<cpu µs> <max RSS KiB>" of its process to BENCH_METER_FILE at exit. */
function writeProbe(scratch: string): string {
  const probe = path.join(scratch, 'meter-probe.js');
  fs.writeFileSync(
    probe,
    [
      "process.on('exit', () => {",
      '  const usage = process.resourceUsage();',
      "  require('fs').appendFileSync(process.env.BENCH_METER_FILE, `${usage.userCPUTime + usage.systemCPUTime} ${usage.maxRSS}\\n`);",
      '});',
      '',
    ].join('\n'),
  );
  return probe;
}

/** min, median and max of some numbers. */
export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

/** min, median (the mean of the middle two for an even count) and max. */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) {
    throw new Error('spread of no values');
  }
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}
