import * as path from 'path';
import { VerifyCheck, VerifyReport, VerifyStatus } from '../../lib/app/verify/verify';
import { verifyExitCode, verifyText } from '../../lib/cli/verify';
import { CORPUS, CliRun, ROOT, copyFolder, expectBuilt, inParallel, removeTempDirs, runCli, tempDir } from './run-cli';

/** `cdk8s-compose verify`, and the summary line `convert` prints. */

const runs: Record<string, CliRun> = {};

beforeAll(async () => {
  expectBuilt();
  const reference = () => copyFolder(path.join(ROOT, 'examples', 'reference'), tempDir('verify'), 'shop');
  const tasks: [string, string, string[]][] = [
    ['text', reference(), ['verify']],
    ['json', reference(), ['verify', '--json']],
    ['convert', reference(), ['convert', '-o', 'k8s']],
    [
      'paperless',
      copyFolder(path.join(CORPUS, 'paperless-ngx-postgres-tika'), tempDir('verify')),
      ['verify', '--json'],
    ],
  ];
  await inParallel(tasks, 2, async ([name, cwd, args]) => {
    runs[name] = await runCli(args, { cwd });
  });
}, 90_000);

afterAll(removeTempDirs);

test('text: a table per service, then the summary line; exit 0 when nothing is broken', () => {
  expect(runs.text.code).toBe(0);
  const out = runs.text.stdout;
  expect(out).toContain('web\n  CHECK       STATUS  EXPECTATION');
  expect(out).toMatch(
    / {2}reach +ok +api:8000 → api \(the bound file "\.\/web\/nginx\.conf"\) +Service "api" port 8000\n/,
  );
  expect(out).toMatch(
    /\nverify: \d+ expectations: \d+ hold, \d+ reported, 0 broken; data: [1-9]\d* durable, \d+ shared, \d+ seeded \(0 broken\)\n$/,
  );
  expect(out).toMatch(/ {2}data +ok +durable \/var\/lib\/shop\/reports \(volume "reports"\) +claim reports\n/);
});

test('--json: the summary and every expectation', () => {
  expect(runs.json.code).toBe(0);
  const report = JSON.parse(runs.json.stdout);
  expect(Object.keys(report)).toEqual(['summary', 'expectations']);
  expect(report.summary.broken).toBe(0);
  expect(report.summary.expectations).toBe(report.expectations.length);
  expect(report.expectations).toContainEqual({
    service: 'worker',
    check: 'reach',
    subject: 'cache:6379 → redis (services.worker.environment.REDIS_HOST)',
    status: 'ok',
    detail: 'Service "redis" port 6379',
  });
  const paperless = JSON.parse(runs.paperless.stdout);
  expect(paperless.summary.broken).toBe(0);
  expect(paperless.expectations).toContainEqual(
    expect.objectContaining({
      service: 'webserver',
      check: 'reach',
      subject: 'tika:9998 → tika (services.webserver.environment.PAPERLESS_TIKA_ENDPOINT)',
      status: 'ok',
    }),
  );
});

test("convert prints verify's summary line", () => {
  expect(runs.convert.code).toBe(0);
  expect(runs.convert.stderr).toMatch(
    /\nverify: \d+ expectations: \d+ hold, \d+ reported, 0 broken; data: [1-9]\d* durable, \d+ shared, \d+ seeded \(0 broken\)\nwrote /,
  );
});

test("a broken expectation is marked in its service's table, and the exit code is 1", () => {
  const report: VerifyReport = {
    expectations: [
      {
        service: 'web',
        check: VerifyCheck.REACH,
        subject: 'api:8000 → api (x)',
        status: VerifyStatus.BROKEN,
        detail: 'no Service "api" selects the pods of "api"',
      },
      {
        service: 'web',
        check: VerifyCheck.ENV,
        subject: 'LEVEL',
        status: VerifyStatus.OK,
        detail: 'equal, from a ConfigMap',
      },
    ],
    ok: 1,
    reported: 0,
    broken: 1,
  };
  expect(verifyText(report)).toBe(
    [
      'web (1 broken)',
      '  CHECK  STATUS  EXPECTATION         DETAIL',
      '  reach  broken  api:8000 → api (x)  no Service "api" selects the pods of "api"',
      '  env    ok      LEVEL               equal, from a ConfigMap',
      '',
      'verify: 2 expectations: 1 hold, 0 reported, 1 broken',
      '',
    ].join('\n'),
  );
  expect(verifyExitCode(report)).toBe(1);
  expect(verifyExitCode({ ...report, broken: 0 })).toBe(0);
});
