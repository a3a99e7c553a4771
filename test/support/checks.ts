import { checkConformance } from './k8s-rules';
import { Manifest, ManifestProblem, expectNoProblems } from './problems';
import { SafetyOptions, checkSafety } from './safety-rules';
import { ValidateOptions, validateManifests } from './validate';

/** The options of the schema validator and of the safety rules together. */
export interface CheckOptions extends ValidateOptions, SafetyOptions {}

/**
 * Every check over one output: the schema validator, the Kubernetes rules and the safety rules. Problems come in
 * that order; warnings are the safety rules' (unpinned images).
 */
export function checkManifests(
  docs: readonly Manifest[],
  options: CheckOptions = {},
): {
  problems: ManifestProblem[];
  warnings: ManifestProblem[];
} {
  const safety = checkSafety(docs, options);
  return {
    problems: [...validateManifests(docs, options), ...checkConformance(docs), ...safety.problems],
    warnings: safety.warnings,
  };
}

/** Throws one error listing every problem of every check as `Kind/name: path: message`; returns the warnings. */
export function expectManifestsPass(docs: readonly Manifest[], options: CheckOptions = {}): ManifestProblem[] {
  const { problems, warnings } = checkManifests(docs, options);
  expectNoProblems(problems, 'manifest checks');
  return warnings;
}
