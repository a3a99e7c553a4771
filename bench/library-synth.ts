/**
 * The library synth, in one process: load the compose project, build a ComposeApp on the model in a Chart, then
 * `App.synth()` into a folder. The bench runs it as compiled JavaScript (transpiled into its scratch folder) against
 * the project's compiled library (with bench/phases.ts beside it), so that no TypeScript compilation is measured.
 *
 * Arguments: <project root> <compose project folder> <output folder>. Prints the phase times as JSON on stdout.
 */
import { createRequire } from 'module';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { phaseSeconds } from './phases';

// Phases start at the process's time origin, so `modules` includes Node's own start.
const [root, projectDir, outdir] = process.argv.slice(2);
const fromRoot = createRequire(path.join(root, 'package.json'));
const cdk8s: typeof import('cdk8s') = fromRoot('cdk8s');
const lib: typeof import('../lib') = fromRoot('./build/lib/index.js');
const modules = performance.now();

const { model } = lib.loadCompose({ workingDir: projectDir, env: {} });
const load = performance.now();

const app = new cdk8s.App({
  outdir,
  outputFileExtension: '.yaml',
  yamlOutputType: cdk8s.YamlOutputType.FILE_PER_RESOURCE,
});
new lib.ComposeApp(new cdk8s.Chart(app, 'bench'), 'App', { model });
const construct = performance.now();

app.synth();
const synth = performance.now();

process.stdout.write(`${JSON.stringify(phaseSeconds({ modules, load, construct, synth }))}\n`);
