import { spawnSync } from 'child_process';
import * as path from 'path';
import { CliIo, ExitCode, display, printWarnings } from './io';
import { DeployOptions, OutputLayout, PROGRAM } from './options/options';
import { writeOutput } from './output/output';
import { createStage, createTempStage, removeStage } from './output/output-stage';
import { BUNDLE_FOLDER, Rendered, WAVE_FOLDER, outputFiles, outputTarget, renderProject } from './render';
import { namespaceFile, waitCommand } from './runbook/runbook';
import { WaveKind, WaveWait } from '../app/deploy-waves';
import { shellQuote } from '../util/shell-words';
import { SECRETS_FOLDER, secretsFiles, splitSecrets } from './gitops/secret-modes';
import { SecretsMode } from './options/secrets-options';

/** How long to wait before asking again when kubectl finds no pods yet. */
const RETRY_MILLIS = 1000;

/** One kubectl call of a deploy. */
export interface DeployStep {
  /** The arguments after `kubectl`. */
  readonly args: readonly string[];
  /** For waits: what is awaited. */
  readonly wait?: WaveWait;
  /** The wave folders not applied when this step fails. */
  readonly remaining: readonly string[];
}

/** The kubectl calls that deploy the waves in `dir`, in order: apply a wave, wait for its dependencies, next wave. */
export function deploySteps(
  rendered: Rendered,
  dir: string,
  options: Pick<DeployOptions, 'context' | 'timeoutSeconds'>,
): DeployStep[] {
  const ns = rendered.project.composeApp.namespace;
  const context = options.context ? ['--context', options.context] : [];
  const folders = rendered.waves.map((w) => w.wave.folder);
  const steps: DeployStep[] = [];
  rendered.waves.forEach(({ wave }, index) => {
    const remaining = folders.slice(index + 1);
    if (wave.kind === WaveKind.NAMESPACE) {
      steps.push({
        args: [...context, 'apply', '-f', path.join(dir, namespaceFile(rendered)!)],
        remaining: folders.slice(index),
      });
      // --secrets separate: the Secrets first, as soon as their namespace exists.
      if (rendered.secrets?.options.mode === SecretsMode.SEPARATE) {
        steps.push({
          args: [...context, 'apply', '-f', `${path.join(dir, SECRETS_FOLDER)}${path.sep}`],
          remaining: folders.slice(index),
        });
      }
    }
    steps.push({ args: [...context, 'apply', '-f', `${path.join(dir, wave.folder)}${path.sep}`], remaining });
    for (const wait of wave.waits) {
      steps.push({ args: [...context, ...waitCommand(wait, ns, options.timeoutSeconds).slice(1)], wait, remaining });
    }
  });
  return steps;
}

/** `cdk8s-compose deploy`: convert, then apply the waves with the user's kubectl and wait between them. */
export function deploy(options: DeployOptions, io: CliIo): number {
  const root = options.out !== undefined ? path.resolve(io.cwd, options.out) : undefined;
  const stage = root ? createStage(root, display(io.cwd, root)) : createTempStage();
  try {
    const rendered = splitSecrets(renderProject(options, io, stage, { outputDir: root }), options.secrets);
    const dir = root ?? path.join(stage, 'manifests');
    const target = outputTarget(dir, OutputLayout.FILE_PER_RESOURCE, io.cwd, rendered.project.composeApp.namespace);
    writeOutput({
      root: dir,
      rootName: display(io.cwd, dir),
      files: [
        ...outputFiles(rendered, target),
        ...secretsFiles(rendered, `npx ${PROGRAM} convert <the options of this deploy>`),
      ],
      ownedFolders: new RegExp(`(?:${WAVE_FOLDER.source})|^${SECRETS_FOLDER}$`),
      ledgerFolder: BUNDLE_FOLDER,
      force: options.force,
    });
    printWarnings(rendered.project.warnings, io, options.quiet);
    const steps = deploySteps(rendered, root ? display(io.cwd, root) : dir, options);
    if (options.dryRun) {
      if (!root) {
        io.stdout('# The manifests are in a temporary folder that is removed on exit; pass -o DIR to keep them.\n');
      }
      steps.forEach((step) => io.stdout(`${['kubectl', ...step.args].map(shellQuote).join(' ')}\n`));
      return ExitCode.OK;
    }
    return runSteps(steps, rendered, options, io);
  } finally {
    removeStage(stage);
  }
}

function runSteps(steps: readonly DeployStep[], rendered: Rendered, options: DeployOptions, io: CliIo): number {
  const ns = rendered.project.composeApp.namespace;
  for (const step of steps) {
    const deadline = Date.now() + options.timeoutSeconds * 1000;
    let args = step.args;
    for (;;) {
      if (!options.quiet) {
        io.stderr(`$ ${['kubectl', ...args].map(shellQuote).join(' ')}\n`);
      }
      const result = spawnSync('kubectl', args, { cwd: io.cwd, env: io.env as NodeJS.ProcessEnv, encoding: 'utf-8' });
      if (result.error) {
        io.stderr(`error: cannot run kubectl: ${result.error.message}. Fix: install kubectl and put it on PATH.\n`);
        return ExitCode.DEPLOY_FAILED;
      }
      if (!options.quiet) {
        io.stdout(result.stdout);
        io.stderr(result.stderr);
      }
      if (result.status === 0) {
        break;
      }
      const left = Math.ceil((deadline - Date.now()) / 1000);
      if (step.wait && /no matching resources found/i.test(result.stderr) && left > 1) {
        // The pods of a workload applied a moment ago may not exist yet.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MILLIS);
        args = step.args.map((a) => (a.startsWith('--timeout=') ? `--timeout=${left - 1}s` : a));
        continue;
      }
      if (options.quiet) {
        io.stderr(result.stderr);
      }
      const skipped =
        step.remaining.length > 0 ? `; not applied: ${step.remaining.map((f) => `${f}/`).join(', ')}` : '';
      if (step.wait) {
        const w = step.wait;
        const selector =
          w.condition === 'complete'
            ? `job/${w.name}`
            : w.condition === 'vm-ready'
              ? `vm/${w.name}`
              : `pod -l app=${w.name}`;
        const services =
          w.condition === 'vm-ready' ? `compose services ${w.composeName}` : `compose service ${w.composeName}`;
        io.stderr(
          `error: ${w.name} (${w.what}, ${services}) was not ${w.condition === 'complete' ? 'complete' : 'ready'} ` +
            `within ${options.timeoutSeconds}s${skipped}. Look at: kubectl describe ${selector} -n ${ns}\n`,
        );
      } else {
        io.stderr(`error: kubectl ${step.args.join(' ')} failed (exit ${result.status})${skipped}\n`);
      }
      return ExitCode.DEPLOY_FAILED;
    }
  }
  io.stderr(`deployed ${rendered.waves.length} waves into namespace ${ns}\n`);
  return ExitCode.OK;
}
