import * as fs from 'fs';
import * as path from 'path';
import { CliRun, expectBuilt, inParallel, removeTempDirs, runCli, tempDir } from './run-cli';

/** The built CLI's exit codes and messages: help, bad usage (2), bad input (1), never a stack trace without --debug. */

const cwd = tempDir('main');
fs.writeFileSync(path.join(cwd, 'compose.yaml'), 'services:\n  web:\n    build: ./web\n');
const project = tempDir('main');
fs.writeFileSync(path.join(project, 'compose.yaml'), 'services:\n  web:\n    image: nginx:1.27.2\n');
const runs: Record<string, CliRun> = {};

beforeAll(async () => {
  expectBuilt();
  const cases: [string, string[]][] = [
    ['help', ['--help']],
    ['convertHelp', ['convert', '-h']],
    ['unknownCommand', ['frobnicate']],
    ['unknownOption', ['convert', '--namspace', 'shop']],
    ['badTarget', ['deploy', '--target', 'cloud']],
    ['missingFile', ['convert', '-f', 'nope.yaml']],
    ['buildOnly', ['analyze']],
  ];
  cases.push(['unknownService', ['convert', '--stdout', '--image', 'api=registry.example.com/api:1.0']]);
  await inParallel(cases, 2,
    async ([name, args]) => {
      runs[name] = await runCli(args, { cwd: name === 'unknownService' ? project : cwd });
    });
}, 60_000);

afterAll(removeTempDirs);

test('--help prints the commands, convert -h its options; exit 0', () => {
  expect(runs.help).toMatchObject({ code: 0, stderr: '' });
  expect(runs.help.stdout).toContain('  convert   Convert a compose project into Kubernetes manifests');
  expect(runs.convertHelp.code).toBe(0);
  expect(runs.convertHelp.stdout.split('\n')[0]).toBe('Usage: cdk8s-compose convert [-f FILE]... [-o DIR|FILE] [--namespace NAME] '
    + '[--controller deployment|statefulset] [--labels K=V,...] [--annotations K=V,...] [options]');
  expect(runs.convertHelp.stdout).toContain('  -f, --file FILE');
});

test('bad usage: the message, the usage line, exit 2', () => {
  expect(runs.unknownCommand).toEqual({
    code: 2,
    timedOut: false,
    stdout: '',
    stderr: 'error: unknown command "frobnicate". Allowed: convert, analyze, verify, deploy\n'
      + 'Usage: cdk8s-compose convert|analyze|verify|deploy [options]   (cdk8s-compose --help)\n',
  });
  expect(runs.unknownOption.code).toBe(2);
  expect(runs.unknownOption.stderr.split('\n')[0]).toBe('error: unknown option --namspace (did you mean --namespace?)');
  expect(runs.unknownService.code).toBe(2);
  expect(runs.unknownService.stderr.split('\n')[0]).toBe('error: --image api=…: the project has no service "api" (or its profile is not '
    + 'active). Allowed: web');
  expect(runs.badTarget.code).toBe(2);
  expect(runs.badTarget.stderr).toBe('error: --target "cloud" is not allowed. Allowed: container, vm, auto\n'
    + 'Usage: cdk8s-compose deploy [-f FILE]... [--context NAME] [--timeout 300s] [--dry-run] [options]\n');
});

test('bad input: the message naming the file and the fix, exit 1, no stack trace', () => {
  expect(runs.missingFile).toEqual({
    code: 1,
    timedOut: false,
    stdout: '',
    stderr: 'error: nope.yaml: compose file "nope.yaml" not found. Fix: check the path; relative paths are taken from the working folder.\n',
  });
  expect(runs.buildOnly.code).toBe(1);
  expect(runs.buildOnly.stderr).toBe('error: compose.yaml:3:5: services.web: service "web" is built from source (build) and has no '
    + 'image. Allowed: a service with an image, or an image supplied for it. Fix: build and push the image, then pass it: '
    + 'images: { \'web\': \'registry.example.com/web:1.0\' } (CLI: --image web=registry.example.com/web:1.0), or add image: to the service.\n');
});
