import { DataMovePlan, ManifestShape, planDataMoves } from '../move-data/move-data-plan';
import { MoveCommand, MoveDataSettings, MovePhase, moveDataSteps } from '../move-data/move-data-steps';
import type { Rendered } from '../rendered';
import { DEFAULT_WAIT_SECONDS, Markdown } from './runbook-text';

/**
 * RUNBOOK.md's "Move the data": the steps `cdk8s-compose move-data` runs, from the same list (`moveDataSteps`), so
 * that the two cannot differ; the logical route of each engine's claim as an alternative.
 */

/** What the runbook's section moves: the claims of the rendered app that replace a compose source. */
export function runbookDataPlan(rendered: Rendered): DataMovePlan {
  const manifests: ManifestShape[] = rendered.waves.flatMap((w) => w.objects.map((o) => o.manifest));
  return planDataMoves(manifests, rendered.project.composeApp);
}

/** The section's body (its numbered heading is the runbook's). */
export function renderMoveData(md: Markdown, plan: DataMovePlan): void {
  const settings: MoveDataSettings = { overwrite: false, logical: false, timeoutSeconds: DEFAULT_WAIT_SECONDS };
  md.para(
    `After the deploy the claims are empty. These steps bring the compose host's data into them: ${plan.moves.length}`,
    `${plan.moves.length === 1 ? 'claim' : 'claims'} (${plan.moves.map((m) => `\`${m.claim}\``).join(', ')}).`,
    "Run them on the compose host, in bash, from the compose project's folder, with kubectl pointed at the cluster:",
    '`cdk8s-compose move-data` (same options as convert) runs exactly these commands, checks each result and',
    'stops at the first problem; `--dry-run` prints them.',
  );
  md.sh(['set -o pipefail']);
  moveDataSteps(plan, settings).forEach((phase, index) => renderPhase(md, phase, index + 1));
  md.para('The compose app stays stopped: it no longer owns the data.');

  const logical = moveDataSteps(plan, { ...settings, logical: true }).filter((p) => p.fills?.route === 'logical');
  if (logical.length > 0) {
    md.para(
      "Instead of copying a database's files (which needs the same engine version on both sides), its claim can be",
      'filled by a dump and a restore: the compose database runs alone and the Kubernetes one starts fresh on its',
      "empty claim. Use these steps in place of the claim's step above (`move-data --logical` does):",
    );
    logical.forEach((phase) => renderPhase(md, phase));
  }
}

function renderPhase(md: Markdown, phase: MovePhase, number?: number): void {
  md.line(`${number !== undefined ? `${number}.` : '-'} ${phase.title}:`, '');
  md.sh(phase.commands.flatMap(commandLines), '   ');
  // One sentence per kind of check: two workloads scaled to zero expect the same of their two waits.
  const expectations = [...new Set(phase.commands.map(expectation).filter((e): e is string => e !== undefined))];
  if (expectations.length > 0) {
    md.line(`   Expect: ${expectations.join('; ')}.`, '');
  }
}

function commandLines(command: MoveCommand): string[] {
  return command.kind === 'compare' ? [command.source, command.target] : [command.line];
}

function expectation(command: MoveCommand): string | undefined {
  switch (command.kind) {
    case 'empty':
      return `the \`find\` prints nothing (the claim ${command.claim} is empty; if it lists files, empty the claim or stop)`;
    case 'gone':
      return 'each `wait` returns once the pods are gone (`no matching resources found` means none were left)';
    case 'compare':
      return 'the last two commands print the same two numbers (files, bytes)';
    default:
      return undefined;
  }
}
