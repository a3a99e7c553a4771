import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart, Testing } from 'cdk8s';
import { ComposeApp } from '../../lib/app/compose-app';
import { formatWarning, isComposeError } from '../../lib/compose/errors';
import { loadComposeFromString, LoadComposeFromStringOptions } from '../../lib/compose/load';
import { appCheckOptions } from '../support/app-checks';
import { BoundedOutcome, runBounded } from '../support/bounded';
import { checkManifests } from '../support/checks';
import { formatProblem, Manifest } from '../support/problems';

/**
 * The code under fuzz, at library level: compose text → loader → ComposeApp → `Testing.synth`, bounded in time, and
 * the invariants every outcome must meet.
 */

/** Longest one load and synth may take before it counts as a hang (a synth of a large app takes ~0.2 s). */
export const HANG_MS = 10_000;

/**
 * A scratch folder for the calling test file, removed after its tests (cdk8s wants an outdir; `Testing.synth` writes
 * nothing to it). Call it at the top level of a test file: it registers the `afterAll` that removes it.
 */
export function scratchDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `cdk8s-compose-${prefix}-`)));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface Migrated {
  readonly app: ComposeApp;
  readonly docs: Manifest[];
  /** The loader's and the app's warnings, one line each (what the CLI would print). */
  readonly log: string;
}

/** Loads the text and synthesizes it through ComposeApp. Throws whatever the code under test throws. */
export function migrate(text: string, options: LoadComposeFromStringOptions, outdir: string): Migrated {
  const { model } = loadComposeFromString(text, options);
  const chart = new Chart(new App({ outdir }), 'fuzz');
  const app = new ComposeApp(chart, 'app', { model });
  const docs = Testing.synth(chart);
  return { app, docs, log: app.warnings.map(formatWarning).join('\n') };
}

/** `migrate`, bounded: a hang becomes a timeout outcome instead of a stalled test. */
export function migrateBounded(
  text: string,
  options: LoadComposeFromStringOptions,
  outdir: string,
): BoundedOutcome<Migrated> {
  return runBounded(() => migrate(text, options, outdir), HANG_MS);
}

/** What went wrong with an outcome, or undefined when it meets the invariants. */
export function violation(
  outcome: BoundedOutcome<Migrated>,
  options: { mustSucceed: boolean; secrets?: readonly string[] },
): string | undefined {
  if (outcome.kind === 'timeout') {
    return `no result within ${HANG_MS} ms (a hang)`;
  }
  const secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
  if (outcome.kind === 'error') {
    const err = outcome.error;
    if (!isComposeError(err)) {
      return `threw ${err instanceof Error ? err.stack : String(err)} instead of a ComposeError`;
    }
    if (options.mustSucceed) {
      return `a valid app was refused: ${err.message}`;
    }
    if (!err.file && !err.path && !/^\S+: /.test(err.message)) {
      return `the ComposeError names no file, key path or construct: ${err.message}`;
    }
    const leaked = secrets.filter((s) => err.message.includes(s));
    return leaked.length > 0 ? `the message quotes a secret value: ${err.message}` : undefined;
  }
  const { app, docs, log } = outcome.value;
  const base = appCheckOptions(app, docs);
  const { problems } = checkManifests(docs, {
    ...base,
    secretValues: [...new Set([...(base.secretValues ?? []), ...secrets])],
    texts: [{ name: 'warnings', content: log }],
  });
  return problems.length > 0 ? `the output fails the checks:\n${problems.map(formatProblem).join('\n')}` : undefined;
}
