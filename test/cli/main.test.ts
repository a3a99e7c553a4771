import * as fs from 'fs';
import * as path from 'path';
import { CliRun, expectBuilt, inParallel, removeTempDirs, runCli, tempDir } from './run-cli';

/** The built CLI's exit codes and messages: help, bad usage (2), bad input (1), never a stack trace without --debug. */

const cwd = tempDir('main');
fs.writeFileSync(path.join(cwd, 'compose.yaml'), 'services:\n  web:\n    build: ./web\n    ports: ["8080:80"]\n');
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
    ['buildOnly', ['analyze', '-p', 'demo', '--registry', 'registry.example.com/shop']],
    ['badRegistry', ['analyze', '--registry', 'https://registry.example.com']],
  ];
  cases.push(['unknownService', ['convert', '--stdout', '--image', 'api=registry.example.com/api:1.0']]);
  cases.push(['unknownVolume', ['convert', '--stdout', '--volume-size', 'db_data=5Gi']]);
  await inParallel(cases, 2, async ([name, args]) => {
    runs[name] = await runCli(args, { cwd: ['unknownService', 'unknownVolume'].includes(name) ? project : cwd });
  });
}, 60_000);

afterAll(removeTempDirs);

test('--help prints the commands, convert -h its options; exit 0', () => {
  expect(runs.help).toMatchObject({ code: 0, stderr: '' });
  expect(runs.help.stdout).toContain('  convert   Convert a compose project into Kubernetes manifests');
  expect(runs.convertHelp.code).toBe(0);
  expect(runs.convertHelp.stdout.split('\n')[0]).toBe(
    'Usage: cdk8s-compose convert [-f FILE]... [-o DIR|FILE] [--namespace NAME] ' +
      '[--controller deployment|statefulset] [--labels K=V,...] [--annotations K=V,...] [options]',
  );
  expect(runs.convertHelp.stdout).toContain('  -f, --file FILE');
});

test('bad usage: the message, the usage line, exit 2', () => {
  expect(runs.unknownCommand).toEqual({
    code: 2,
    timedOut: false,
    stdout: '',
    stderr:
      'error: unknown command "frobnicate". Allowed: convert, analyze, verify, deploy, move-data\n' +
      'Usage: cdk8s-compose convert|analyze|verify|deploy|move-data [options]   (cdk8s-compose --help)\n',
  });
  expect(runs.unknownOption.code).toBe(2);
  expect(runs.unknownOption.stderr.split('\n')[0]).toBe('error: unknown option --namspace (did you mean --namespace?)');
  expect(runs.unknownService.code).toBe(2);
  expect(runs.unknownService.stderr.split('\n')[0]).toBe(
    'error: --image api=…: the project has no service "api" (or its profile is not ' + 'active). Allowed: web',
  );
  // The flag the user typed, not the library's volumes["db_data"] under a construct path.
  expect(runs.unknownVolume.code).toBe(2);
  expect(runs.unknownVolume.stderr.split('\n')[0]).toBe(
    'error: --volume-size db_data=…: the project has no named volume or read-write bound folder "db_data". ' +
      'Allowed: none (a top-level volume, or a folder as a service binds it: ./data)',
  );
  expect(runs.badTarget.code).toBe(2);
  expect(runs.badTarget.stderr).toBe(
    'error: --target "cloud" is not allowed. Allowed: container, vm, auto\n' +
      'Usage: cdk8s-compose deploy [-f FILE]... [--context NAME] [--timeout 300s] [--dry-run] [options]\n',
  );
});

test('bad input: the message naming the file and the fix, exit 1, no stack trace', () => {
  expect(runs.missingFile).toEqual({
    code: 1,
    timedOut: false,
    stdout: '',
    stderr:
      'error: nope.yaml: compose file "nope.yaml" not found. Fix: check the path; relative paths are taken from the working folder.\n',
  });
  expect(runs.badRegistry.code).toBe(2);
  expect(runs.badRegistry.stderr.split('\n')[0]).toBe(
    'error: --registry "https://registry.example.com" is not HOST[/PATH]. ' +
      'Allowed: a registry host with an optional port and path, such as registry.example.com/shop or localhost:5000',
  );
});

test('a build-only service converts to the image docker compose build tags, under --registry; analyze says how to build it', () => {
  expect(runs.buildOnly.code).toBe(0);
  expect(runs.buildOnly.stdout).toContain(
    '      - compose.yaml:3:5: services.web: service web is built from source ' +
      'without an image: it runs the image docker compose build tags (web → registry.example.com/shop/demo-web); build and push ' +
      'it where the cluster can pull it (RUNBOOK.md and analyze give the commands), under your registry with --registry ' +
      'HOST[/PATH], or name another image with --image SERVICE=REF\n',
  );
  expect(runs.buildOnly.stdout).toContain(
    '  build:      registry.example.com/shop/demo-web\n' +
      '      $ docker build -t registry.example.com/shop/demo-web ./web\n' +
      '      $ docker push registry.example.com/shop/demo-web\n',
  );
  expect(runs.buildOnly.stdout).toContain(
    '  $ docker buildx bake -f compose.yaml --set web.tags=registry.example.com/shop/demo-web --push web\n',
  );
});
