import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { RUNBOOK_SECTIONS, runbookSections } from '../../../lib/cli/runbook/runbook';

// The runbook's numbered sections come from one list (RUNBOOK_SECTIONS), which docs/runbook.md's generated part
// names: a runbook written by convert has exactly the sections that list gives for its app, in order.

const ROOT = path.resolve(__dirname, '..', '..', '..');

test('the conditional sections are left out when the app has no VM and no data to move', () => {
  expect(runbookSections({ vm: true, moveData: true })).toEqual(RUNBOOK_SECTIONS.map((s) => s.title));
  expect(runbookSections({ vm: false, moveData: false })).toEqual([
    'Before you deploy',
    'Topology',
    'Set up the cluster context',
    'Deploy',
    'Verify',
    'Troubleshoot',
    'Day-2 operations',
    'Tear down',
  ]);
});

test("the quick start's RUNBOOK.md has the numbered sections of the list, in order, and its table of contents", () => {
  expect(fs.existsSync(path.join(ROOT, 'build', 'bin', 'cdk8s-compose.js'))).toBe(true);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'runbook-sections-'));
  try {
    const project = path.join(work, 'quickstart');
    fs.cpSync(path.join(ROOT, 'examples', 'quickstart'), project, { recursive: true });
    const run = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'cdk8s-compose'), 'convert', '-o', 'k8s'], {
      cwd: project,
      encoding: 'utf-8',
      env: { PATH: process.env.PATH ?? '', HOME: work },
    });
    expect(run.status).toBe(0);
    const runbook = fs.readFileSync(path.join(project, 'k8s', 'RUNBOOK.md'), 'utf-8');
    const numbered = [...runbook.matchAll(/^## (\d+)\. (.+)$/gm)].map((m) => `${m[1]}. ${m[2]}`);
    const expected = runbookSections({ vm: false, moveData: true }).map((title, i) => `${i + 1}. ${title}`);
    expect(numbered).toEqual(expected);
    expect(runbook).toContain(`${expected.length}. [Tear down](#${expected.length}-tear-down)`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}, 60_000);
