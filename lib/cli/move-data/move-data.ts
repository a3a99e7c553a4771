import { spawnSync } from 'child_process';
import { ComposeError } from '../../compose/errors';
import { CliIo, ExitCode } from '../io';
import { DataMovePlan, planDataMoves, projectFolder, vmDataSources } from './move-data-plan';
import { MoveCommand, MoveDataSettings, MovePhase, moveDataSteps } from './move-data-steps';
import { MoveDataOptions } from '../options/options';
import { buildProject, withRedaction } from '../project';

/** The image base URL a VM's golden image is given when the project only has to be read (as analyze does). */
const PLACEHOLDER_IMAGE_BASE_URL = 'https://images.invalid/move-data';
/** kubectl wait's words when no pod matches its selector: for `--for=delete`, they are gone already. */
const NO_PODS_LEFT = /no matching resources found/;
/** What a command may print before it is cut (the counts print two lines; the streams go from process to process). */
const MAX_OUTPUT = 64 * 1024 * 1024;

/**
 * The claims of the converted project that replace a compose source, and their sources: the same construct tree
 * `convert` builds (same options), its own rendering read.
 */
export function dataMovePlan(
  options: MoveDataOptions,
  io: CliIo,
): DataMovePlan & { readonly projectDir: string; readonly vmNotes: readonly string[] } {
  const project = buildProject(options, io, { outdir: '.', placeholderImageBaseUrl: PLACEHOLDER_IMAGE_BASE_URL });
  const manifests = withRedaction(project.composeApp.redactor, () => project.chart.toJson());
  return {
    ...planDataMoves(manifests, project.composeApp),
    projectDir: projectFolder(io.cwd, project.model.files),
    vmNotes: vmDataSources(project.composeApp).map(
      ({ vm, services, sources }) =>
        `note: move-data fills claims only, not the VM "${vm}": the data of ${services.join(', ')} (${sources.join(
          ', ',
        )}) is not moved. Copy it into the VM yourself, with the VM's app stopped: named volumes keep their names on ` +
        `its data disk ${vm}-datadisk, bound folders are in /opt/${vm}; RUNBOOK.md ("Log in, and read the app's ` +
        'logs") shows how to reach the VM with virtctl ssh\n',
    ),
  };
}

/**
 * `cdk8s-compose move-data`: from the compose host, stop the compose app, scale the Kubernetes workloads that mount
 * the claims to zero, stream each source into its claim through a helper pod, compare files and bytes on both sides,
 * and scale the workloads back up. `--dry-run` prints the commands.
 */
export function moveData(options: MoveDataOptions, io: CliIo): number {
  const plan = dataMovePlan(options, io);
  plan.vmNotes.forEach((note) => io.stderr(note));
  if (plan.moves.length === 0) {
    io.stderr(`no claim of namespace ${plan.namespace} replaces a compose volume or folder: nothing to move\n`);
    return ExitCode.OK;
  }
  if (options.dryRun) {
    io.stdout(dryRunText(moveDataSteps(plan, options)));
    return ExitCode.OK;
  }
  return runMove(plan, options, { ...io, cwd: plan.projectDir });
}

/** The commands as a script: each step's title as a comment, then its lines; the counts' pairs say so. */
export function dryRunText(phases: readonly MovePhase[]): string {
  const lines = ['set -o pipefail'];
  for (const phase of phases) {
    lines.push('', `# ${phase.title}`);
    for (const command of phase.commands) {
      if (command.kind === 'compare') {
        lines.push('# the two print the same files and bytes:', command.source, command.target);
      } else if (command.kind === 'empty') {
        lines.push('# prints nothing when the claim is empty:', command.line);
      } else {
        lines.push(command.line);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Runs every step of the move with bash from `io.cwd` (the project folder); the exit code. */
export function runMove(plan: DataMovePlan, settings: MoveDataSettings, io: CliIo): number {
  const phases = moveDataSteps(plan, settings);
  let done = 0;
  for (const phase of phases) {
    io.stderr(`# ${phase.title}\n`);
    for (const command of phase.commands) {
      const failure = runCommand(command, io);
      if (failure !== undefined) {
        io.stderr(`error: ${failure}. ${stateAfter(phases, done, plan)}\n`);
        return ExitCode.DEPLOY_FAILED;
      }
    }
    done += 1;
  }
  io.stderr(
    `moved ${plan.moves.length} ${plan.moves.length === 1 ? 'claim' : 'claims'} into namespace ${plan.namespace}: ` +
      `${plan.moves.map((m) => m.claim).join(', ')}; the compose app stays stopped\n`,
  );
  return ExitCode.OK;
}

/** Runs one command; the reason it failed, or undefined. */
function runCommand(command: MoveCommand, io: CliIo): string | undefined {
  if (command.kind === 'compare') {
    const source = shell(command.source, io);
    const target = shell(command.target, io);
    for (const [run, line] of [
      [source, command.source],
      [target, command.target],
    ] as const) {
      if (run.code !== 0) {
        return `${line} failed (exit ${run.code}): ${lastLine(run.stderr)}`;
      }
    }
    const [sourceCounts, targetCounts] = [counts(source.stdout), counts(target.stdout)];
    io.stderr(
      `${command.claim}: the source holds ${describeCounts(sourceCounts)}, the claim ${describeCounts(targetCounts)}\n`,
    );
    if (sourceCounts === undefined || targetCounts === undefined || sourceCounts.join() !== targetCounts.join()) {
      return `the claim ${command.claim} does not hold what its source holds`;
    }
    return undefined;
  }
  const run = shell(command.line, io);
  io.stdout(run.stdout);
  io.stderr(run.stderr);
  if (run.code !== 0 && !(command.kind === 'gone' && NO_PODS_LEFT.test(run.stderr))) {
    return `${command.line} failed (exit ${run.code})`;
  }
  if (command.kind === 'empty' && run.stdout.trim() !== '') {
    return (
      `the claim ${command.claim} already holds files (${run.stdout.trim().split('\n').slice(0, 3).join(', ')}): ` +
      'run again with --overwrite to empty it first, or fill it yourself'
    );
  }
  return undefined;
}

function shell(line: string, io: CliIo): { code: number | null; stdout: string; stderr: string } {
  io.stderr(`$ ${line}\n`);
  // No startup files: bash reads ~/.bashrc when it takes its stdin for a network connection.
  const result = spawnSync('bash', ['--norc', '--noprofile', '-o', 'pipefail', '-c', line], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: io.cwd,
    env: io.env as NodeJS.ProcessEnv,
    encoding: 'utf-8',
    maxBuffer: MAX_OUTPUT,
  });
  if (result.error) {
    throw new ComposeError(`cannot run bash: ${result.error.message}`, {
      hint: 'move-data runs its commands with bash; install it and put it on PATH',
    });
  }
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `[files, bytes]` from the two lines COUNT_SCRIPT prints. */
function counts(stdout: string): [number, number] | undefined {
  const numbers = stdout.trim().split(/\s+/).map(Number);
  return numbers.length === 2 && numbers.every((n) => Number.isInteger(n) && n >= 0)
    ? [numbers[0], numbers[1]]
    : undefined;
}

function describeCounts(value: [number, number] | undefined): string {
  return value === undefined ? 'an unreadable count' : `${value[0]} files, ${value[1]} bytes`;
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? '';
}

/** Where the move stopped, and how to get back: the steps done decide what is stopped. */
function stateAfter(phases: readonly MovePhase[], done: number, plan: DataMovePlan): string {
  const titles = phases.slice(0, done).map((p) => p.title);
  const parts: string[] = [];
  if (titles.some((t) => t.startsWith('Stop the compose app'))) {
    parts.push('The compose app is stopped ("docker compose start" brings it back).');
  }
  if (titles.some((t) => t.startsWith('Scale the Kubernetes workloads'))) {
    parts.push(
      `${plan.workloads.map((w) => `${w.kind.toLowerCase()}/${w.name}`).join(', ')} ${plan.workloads.length === 1 ? 'is' : 'are'} ` +
        `scaled to zero in namespace ${plan.namespace}; a helper pod move-data-* may be left (kubectl get pods -n ${plan.namespace}).`,
    );
  }
  parts.push('Fix the cause and run move-data again (--dry-run shows every command).');
  return parts.join(' ');
}
