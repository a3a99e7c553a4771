import * as fc from 'fast-check';
import { composeText, validApp, writeProjectFiles } from './compose-arbitraries';
import { fuzzAssert, runsOf } from './fuzz-settings';
import { migrateBounded, scratchDir, violation } from './fuzz-target';
import { secretValuesOf } from '../support/app-checks';

/**
 * Random valid compose apps (services with ports, env with secrets, volumes, depends_on, healthchecks, networks,
 * secrets and configs) always synthesize, and the output passes the schema validator, the Kubernetes rules and the
 * safety rules; no secret value appears outside a Secret, nor in a warning.
 */

const project = scratchDir('valid-apps');
const outdir = scratchDir('valid-apps-out');
writeProjectFiles(project);

test('a random valid compose app always synthesizes and passes every check', () => {
  const details = fuzzAssert(
    fc.property(validApp, (app) => {
      const text = composeText(app);
      const outcome = migrateBounded(text, { projectDir: project, env: app.env }, outdir);
      const problem = violation(outcome, { mustSucceed: true, secrets: app.secrets });
      if (problem) {
        throw new Error(`${problem}\n--- compose.yaml\n${text}--- env ${JSON.stringify(app.env)}`);
      }
      // Every secret value reached a Secret: none was dropped on the way.
      if (outcome.kind === 'value') {
        const stored = secretValuesOf(outcome.value.docs).join('\n');
        const missing = app.secrets.filter((s) => !stored.includes(s));
        if (missing.length > 0) {
          throw new Error(`secret values in no Secret: ${missing.join(', ')}\n--- compose.yaml\n${text}`);
        }
      }
    }),
    runsOf('random valid apps synthesize and pass every check'),
  );
  expect(details.numRuns).toBe(runsOf('random valid apps synthesize and pass every check'));
});
