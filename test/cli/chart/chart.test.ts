import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { canonical, sortedCanonical } from '../../support/kustomize';
import { Manifest } from '../../support/problems';
import { parseYamlDocs } from '../../support/yaml-docs';
import {
  AS_REFERENCE,
  BIN,
  CORPUS,
  ROOT,
  copyFolder,
  expectBuilt,
  inParallel,
  listFiles,
  manifestDocs,
  removeTempDirs,
  runCli,
  tempDir,
} from '../run-cli';

/**
 * `convert --chart` (lib/cli/chart*.ts) with the real helm (scripts/install-tools.sh installs it): `helm lint` clean,
 * `helm template` at the default values renders, as data, the objects of the plain output with the same secret handling
 * (`--secrets separate`, the chart's default), `--set` changes exactly what it names, and values.schema.json refuses a
 * mistyped value with a message that names it. Over the reference app and every corpus project.
 */

const HELM = spawnSync('helm', ['version', '--short'], { encoding: 'utf8' });
const present = HELM.status === 0;
const describeHelm = present ? describe : describe.skip;
if (!present) {
  test.skip('helm is not installed (scripts/install-tools.sh installs it): the chart tests did not run', () =>
    undefined);
}

const REFERENCE = path.join(ROOT, 'examples', 'reference');
const CORPUS_DIRS = fs
  .readdirSync(CORPUS)
  .filter((d) => fs.statSync(path.join(CORPUS, d)).isDirectory())
  .sort();

function helm(args: readonly string[], cwd?: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync('helm', args, { encoding: 'utf8', cwd, maxBuffer: 64 * 1024 * 1024 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The objects `helm template` renders, without the empty documents of switched-off templates. */
function template(chart: string, ...args: string[]): Manifest[] {
  const run = helm(['template', 'release', chart, ...args]);
  if (run.status !== 0) {
    throw new Error(`helm template ${args.join(' ')} failed: ${run.stderr}`);
  }
  return parseYamlDocs(run.stdout, 'helm template').filter((d) => d !== null && d !== undefined);
}

/** Every leaf path that differs between two renders, as `Kind/name:path`. */
function differences(before: readonly Manifest[], after: readonly Manifest[]): string[] {
  const byKey = (docs: readonly Manifest[]) => new Map(docs.map((d) => [`${d.kind}/${d.metadata.name}`, d]));
  const a = byKey(before);
  const b = byKey(after);
  const out: string[] = [];
  const walk = (key: string, x: any, y: any, at: string) => {
    if (x !== null && y !== null && typeof x === 'object' && typeof y === 'object') {
      for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])]) {
        walk(key, x[k], y[k], at ? `${at}.${k}` : k);
      }
    } else if (canonical(x) !== canonical(y)) {
      out.push(`${key}:${at}`);
    }
  };
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    walk(key, a.get(key), b.get(key), '');
  }
  return out;
}

interface Pair {
  /** The plain output (`--secrets separate`). */
  readonly plain: string;
  readonly chart: string;
}

async function convertPair(project: string, args: readonly string[]): Promise<Pair> {
  const plain = await runCli(['convert', ...args, '--secrets', 'separate', '-o', 'plain'], { cwd: project });
  const chart = await runCli(['convert', ...args, '--chart', '-o', 'chart'], { cwd: project });
  for (const [what, run] of [
    ['plain', plain],
    ['chart', chart],
  ] as const) {
    if (run.code !== 0) {
      throw new Error(`${project}: convert (${what}) exited ${run.code}: ${run.stderr}`);
    }
  }
  return { plain: path.join(project, 'plain'), chart: path.join(project, 'chart') };
}

const pairs = new Map<string, Pair>();

beforeAll(async () => {
  if (!present) {
    return;
  }
  expectBuilt();
  const work = tempDir('chart');
  const jobs: Array<[string, string, readonly string[]]> = [
    ['reference', REFERENCE, AS_REFERENCE],
    ...CORPUS_DIRS.map((d): [string, string, readonly string[]] => [d, path.join(CORPUS, d), []]),
  ];
  await inParallel(jobs, 2, async ([name, from, args]) => {
    pairs.set(name, await convertPair(copyFolder(from, work, name), args));
  });
}, 600_000);

afterAll(removeTempDirs);

describeHelm('the reference app', () => {
  const chart = () => pairs.get('reference')!.chart;

  test('the chart: Chart.yaml, values.yaml, values.schema.json, templates/ (one file per object, named by its wave), NOTES.txt, .helmignore', () => {
    const files = listFiles(chart());
    expect(files.filter((f) => !f.startsWith('templates/') && !f.startsWith('golden-image/'))).toEqual(
      expect.arrayContaining([
        '.helmignore',
        'Chart.yaml',
        'values.schema.json',
        'values.yaml',
        expect.stringMatching(/^secrets\/.+-secret\.yaml$/),
      ]),
    );
    expect(files).toContain('templates/NOTES.txt');
    expect(files.filter((f) => /^\d+-/.test(f))).toEqual([]);
    const templates = files.filter((f) => f.startsWith('templates/') && f.endsWith('.yaml'));
    expect(templates.length).toBe(manifestDocs(pairs.get('reference')!.plain).length);
    expect([...new Set(templates.map((f) => /^templates\/(\d+-[a-z]+)-/.exec(f)?.[1]))]).toEqual([
      '0-namespace',
      '1-stateful',
      '2-app',
      '3-vm',
    ]);
    const meta = parseYamlDocs(fs.readFileSync(path.join(chart(), 'Chart.yaml'), 'utf8'), 'Chart.yaml')[0];
    expect(meta).toMatchObject({ apiVersion: 'v2', name: 'shop', type: 'application', version: '0.1.0' });
  });

  test('converting again into the chart writes the same files, with no warning about them', async () => {
    const before = new Map(listFiles(chart()).map((f) => [f, fs.readFileSync(path.join(chart(), f))]));
    const project = path.dirname(chart());
    const again = await runCli(['convert', ...AS_REFERENCE, '--chart', '-o', 'chart'], { cwd: project });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('foreign-file');
    expect(new Map(listFiles(chart()).map((f) => [f, fs.readFileSync(path.join(chart(), f))]))).toEqual(before);
  });

  test('helm lint is clean', () => {
    const run = helm(['lint', '--strict', chart()]);
    expect(run.stdout.split('\n').filter((l) => /\[(ERROR|WARNING)\]/.test(l))).toEqual([]);
    expect(run.status).toBe(0);
  });

  test('helm template at the default values renders the objects of the plain output, as data', () => {
    expect(sortedCanonical(template(chart()))).toEqual(sortedCanonical(manifestDocs(pairs.get('reference')!.plain)));
  });

  test('values.yaml holds no secret value: the Secrets are in secrets/, as in the plain output', () => {
    const secrets = listFiles(pairs.get('reference')!.plain)
      .filter((f) => f.startsWith('secrets/') && f.endsWith('.yaml'))
      .flatMap((f) => parseYamlDocs(fs.readFileSync(path.join(pairs.get('reference')!.plain, f), 'utf8'), f));
    const values = secrets.flatMap((s) => Object.values(s.data ?? {}) as string[]);
    expect(values.length).toBeGreaterThan(0);
    for (const file of listFiles(chart()).filter((f) => !f.startsWith('secrets/'))) {
      const text = fs.readFileSync(path.join(chart(), file)).toString('latin1');
      for (const value of values) {
        expect(text.includes(value) || text.includes(Buffer.from(value, 'base64').toString('latin1'))).toBe(false);
      }
    }
  });

  test.each([
    [['--set', 'web.replicas=3'], ['Deployment/web:spec.replicas']],
    [['--set', 'api.image.tag=2.0.1'], ['Deployment/api:spec.template.spec.containers.0.image']],
    [['--set', 'web.ingress.hosts[0]=shop.example.org'], ['Ingress/web:spec.rules.0.host']],
    [['--set', 'networkPolicies.enabled=false'], 'every NetworkPolicy'],
  ])('%j changes exactly that', (args, expected) => {
    const base = template(chart());
    const changed = template(chart(), ...args);
    const diff = differences(base, changed);
    if (expected === 'every NetworkPolicy') {
      expect(diff.length).toBeGreaterThan(0);
      expect(diff.every((d) => d.startsWith('NetworkPolicy/'))).toBe(true);
      expect(changed.filter((d) => d.kind === 'NetworkPolicy')).toEqual([]);
    } else {
      expect(diff).toEqual(expected);
    }
    if (args[1].startsWith('api.image')) {
      const api = changed.find((d) => d.kind === 'Deployment' && d.metadata.name === 'api')!;
      expect(api.spec.template.spec.containers[0].image).toMatch(/:2\.0\.1$/);
    }
  });

  test("--set namespace=other moves every object, and every namespace field that named the app's", () => {
    const changed = template(chart(), '--set', 'namespace=other');
    const diff = differences(template(chart()), changed);
    // The Namespace object is another one (by name); everything else differs only in fields named namespace.
    expect(diff.filter((d) => !/(^|\.)namespace$/.test(d.split(':')[1]))).toEqual([
      'Namespace/other:',
      'Namespace/shop:',
    ]);
    expect(changed.find((d) => d.kind === 'Namespace')!.metadata).toMatchObject({
      name: 'other',
      labels: { name: 'other' },
    });
    expect(diff.some((d) => d.startsWith('RoleBinding/') && d.endsWith('subjects.0.namespace'))).toBe(true);
    expect(JSON.stringify(changed)).not.toMatch(/"namespace":"shop"/);
  });

  test('--set secrets.<name>.existingSecret: every reference to that Secret reads the one given, nothing else changes', () => {
    const base = template(chart());
    const changed = template(chart(), '--set', 'secrets.api-env.existingSecret=shop-api-from-vault');
    const diff = differences(base, changed);
    expect(diff.length).toBeGreaterThan(0);
    expect(diff.every((d) => /secretKeyRef\.name$|secretRef\.name$|secret\.secretName$/.test(d))).toBe(true);
    const refs = JSON.stringify(changed).match(/"secretKeyRef":\{"key":"[^"]*","name":"[^"]*"\}/g) ?? [];
    expect(refs.filter((r) => r.endsWith('"name":"api-env"}'))).toEqual([]);
    expect(refs.filter((r) => r.endsWith('"name":"shop-api-from-vault"}')).length).toBeGreaterThan(0);
  });

  test.each([
    [['--set', 'web.replicas=three'], 'web.replicas: Invalid type. Expected: integer, given: string'],
    [['--set', 'web.replica=3'], 'web: Additional property replica is not allowed'],
    [['--set', 'web.ingress.hosts[1]=www.example.com'], 'web.ingress.hosts: Array must have at most 1 items'],
    [
      ['--set', 'web.image.pullPolicy=Sometimes'],
      'web.image.pullPolicy: web.image.pullPolicy must be one of the following: "Always", "IfNotPresent", "Never"',
    ],
  ])('a mistyped value %j fails lint and template, naming it', (args, message) => {
    const run = helm(['template', 'release', chart(), ...args]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(message);
    const lint = helm(['lint', chart(), ...args]);
    expect(lint.status).not.toBe(0);
    expect(lint.stdout + lint.stderr).toContain(message);
  });
});

describeHelm('the other secret modes', () => {
  const modes: Record<string, readonly string[]> = {
    inline: ['--secrets', 'inline'],
    external: ['--secrets', 'external', '--secret-store', 'shop-store'],
  };
  const converted = new Map<string, Pair>();

  beforeAll(async () => {
    const work = tempDir('chart-modes');
    await inParallel(Object.entries(modes), 2, async ([mode, args]) => {
      const project = copyFolder(REFERENCE, work, mode);
      const plain = await runCli(['convert', ...AS_REFERENCE, ...args, '-o', 'plain'], { cwd: project });
      const chart = await runCli(['convert', ...AS_REFERENCE, ...args, '--chart', '-o', 'chart'], { cwd: project });
      expect([plain.code, chart.code]).toEqual([0, 0]);
      // Values in the output, plain or chart, are named in a warning; none without them.
      expect(chart.stderr.includes('hold values from the compose project')).toBe(mode === 'inline');
      expect(plain.stderr.includes('hold values from the compose project')).toBe(mode === 'inline');
      converted.set(mode, { plain: path.join(project, 'plain'), chart: path.join(project, 'chart') });
    });
  }, 120_000);

  test.each(Object.keys(modes))(
    '--secrets %s: lint clean, and the default render is the plain output of that mode',
    (mode) => {
      const { plain, chart } = converted.get(mode)!;
      const lint = helm(['lint', '--strict', chart]);
      expect(lint.stdout.split('\n').filter((l) => /\[(ERROR|WARNING)\]/.test(l))).toEqual([]);
      expect(sortedCanonical(template(chart))).toEqual(sortedCanonical(manifestDocs(plain)));
    },
  );

  test('inline: the values are in values.yaml (secrets.<name>.data); an existingSecret leaves its Secret out', () => {
    const { chart } = converted.get('inline')!;
    const values = parseYamlDocs(fs.readFileSync(path.join(chart, 'values.yaml'), 'utf8'), 'values.yaml')[0];
    expect(Object.keys(values.secrets['api-env'])).toEqual(['existingSecret', 'data']);
    const changed = template(chart, '--set', 'secrets.api-env.existingSecret=mine');
    expect(changed.filter((d) => d.kind === 'Secret').map((d) => d.metadata.name)).not.toContain('api-env');
    expect(
      template(chart)
        .filter((d) => d.kind === 'Secret')
        .map((d) => d.metadata.name),
    ).toContain('api-env');
  });

  test('external: an existingSecret leaves its ExternalSecret out', () => {
    const { chart } = converted.get('external')!;
    const names = (docs: Manifest[]) => docs.filter((d) => d.kind === 'ExternalSecret').map((d) => d.metadata.name);
    expect(names(template(chart))).toContain('api-env');
    expect(names(template(chart, '--set', 'secrets.api-env.existingSecret=mine'))).not.toContain('api-env');
  });
});

describeHelm('text that Helm would read as a template, and images of every shape', () => {
  const DIGEST = `sha256:${'ab12'.repeat(16)}`;
  const COMPOSE = `name: edge
services:
  web:
    image: nginx
    command: ["sh", "-c", "echo '{{ .Values.oops }}' && exec nginx -g 'daemon off;'"]
    environment:
      PORT: "8080"
      GREETING: 'say "hi" {{x}} }}'
    ports:
      - "80:80"
  tool:
    image: registry.example.com:5000/tools/tool@${DIGEST}
    command: ["sleep", "infinity"]
`;
  let pair: Pair;

  beforeAll(async () => {
    const project = path.join(tempDir('chart-edge'), 'edge');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'compose.yaml'), COMPOSE);
    pair = await convertPair(project, []);
  }, 60_000);

  test('{{ in a command or a value is printed as it is, and the images keep registry ports and digests', () => {
    expect(sortedCanonical(template(pair.chart))).toEqual(sortedCanonical(manifestDocs(pair.plain)));
    const values = parseYamlDocs(fs.readFileSync(path.join(pair.chart, 'values.yaml'), 'utf8'), 'values.yaml')[0];
    expect(values.web.image).toEqual({ repository: 'nginx', tag: '', pullPolicy: 'Always' });
    expect(values.tool.image.repository).toBe('registry.example.com:5000/tools/tool');
    expect(values.tool.image.tag).toBe(DIGEST);
    const tagged = template(pair.chart, '--set', 'web.image.tag=1.27');
    expect(differences(template(pair.chart), tagged)).toEqual(['Deployment/web:spec.template.spec.containers.0.image']);
    expect(
      tagged.find((d) => d.kind === 'Deployment' && d.metadata.name === 'web')!.spec.template.spec.containers[0].image,
    ).toBe('nginx:1.27');
    const env = template(pair.chart, '--set', 'web.env.PORT=9090');
    expect(differences(template(pair.chart), env)).toEqual(['ConfigMap/web-env:data.PORT']);
    expect(env.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'web-env')!.data.PORT).toBe('9090');
  });
});

describeHelm('every corpus project', () => {
  test('helm lint passes on all the charts at once', () => {
    const charts = CORPUS_DIRS.map((d) => pairs.get(d)!.chart);
    const run = helm(['lint', '--strict', ...charts]);
    expect(run.stdout.split('\n').filter((l) => /\[(ERROR|WARNING)\]/.test(l))).toEqual([]);
    expect(run.stdout).toContain(`${charts.length} chart(s) linted, 0 chart(s) failed`);
    expect(run.status).toBe(0);
  });

  test.each(CORPUS_DIRS)('%s: helm template at the default values renders the plain output, as data', (dir) => {
    const { plain, chart } = pairs.get(dir)!;
    expect(sortedCanonical(template(chart))).toEqual(sortedCanonical(manifestDocs(plain)));
  });
});

describeHelm('usage', () => {
  test.each([
    [
      ['--chart', '--stdout'],
      'error: --chart writes a chart folder: leave out -o FILE.yaml, --single-file and --stdout',
    ],
    [
      ['--chart', '-o', 'all.yaml'],
      'error: --chart writes a chart folder: leave out -o FILE.yaml, --single-file and --stdout',
    ],
    [
      ['--chart', '--gitops-repo', 'https://git.example.com/shop.git'],
      'error: --gitops-repo is for the plain output: a chart has no wave folders for gitops/ and overlays to point at ' +
        '(Argo CD and Flux install a chart themselves)',
    ],
  ])('%j: %s', async (args, error) => {
    const run = await runCli(['convert', ...args], { cwd: ROOT });
    expect({ code: run.code, error: run.stderr.split('\n')[0] }).toEqual({ code: 2, error });
  });
});

/** The lines of the ```sh blocks of a docs/ file, block by block. */
function shellBlocks(file: string): string[][] {
  const text = fs.readFileSync(path.join(ROOT, 'docs', file), 'utf8');
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trimEnd().split('\n'));
}

describeHelm('switching between the plain output and a chart in one folder', () => {
  test("the other layout's folders are emptied, and its files at the top are named for removal", async () => {
    const cwd = copyFolder(REFERENCE, tempDir('chart-switch'), 'shop');
    const convert = (...args: string[]) => runCli(['convert', ...AS_REFERENCE, ...args, '-o', 'out'], { cwd });
    const leftover = (stderr: string) => stderr.split('\n').filter((l) => l.includes('no longer written'));
    expect((await convert()).code).toBe(0);
    const toChart = await convert('--chart');
    expect(toChart.code).toBe(0);
    expect(leftover(toChart.stderr)).toEqual([
      'warning: out: kustomization.yaml, RUNBOOK.md are left from a conversion with no --chart and no longer written: remove them',
    ]);
    expect(listFiles(path.join(cwd, 'out')).filter((f) => /^\d+-/.test(f))).toEqual([]);
    const back = await convert();
    expect(back.code).toBe(0);
    expect(leftover(back.stderr)).toEqual([
      'warning: out: Chart.yaml, values.yaml, values.schema.json, .helmignore are left from a conversion with --chart and ' +
        'no longer written: remove them',
    ]);
    expect(listFiles(path.join(cwd, 'out')).filter((f) => f.startsWith('templates/'))).toEqual([]);
  });
});

describeHelm('docs/helm.md', () => {
  test('the worked example runs as written: the chart lints, and renders three web replicas at the other host', () => {
    const [example, install] = shellBlocks('helm.md');
    const cwd = copyFolder(REFERENCE, tempDir('chart-docs'), 'shop');
    const outputs = example.map((line) => {
      const run = spawnSync('sh', ['-c', line.replace(/^npx cdk8s-compose /, `'${process.execPath}' '${BIN}' `)], {
        cwd,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      expect({ line, status: run.status }).toEqual({ line, status: 0 });
      return run.stdout;
    });
    const docs = parseYamlDocs(outputs[outputs.length - 1], 'helm template').filter((d) => d);
    expect(docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'web')!.spec.replicas).toBe(3);
    expect(docs.find((d) => d.kind === 'Ingress' && d.metadata.name === 'web')!.spec.rules[0].host).toBe(
      'shop.example.org',
    );
    // The install on a cluster takes the very values the test rendered.
    expect(install[0]).toBe(example[2].replace('helm template ', 'helm install '));
    expect(install[1]).toBe('kubectl apply -f chart/secrets/');
    expect(fs.existsSync(path.join(cwd, 'chart', 'secrets'))).toBe(true);
  });

  test("quotes the schema's message for a mistyped value as helm prints it", () => {
    const text = fs.readFileSync(path.join(ROOT, 'docs', 'helm.md'), 'utf8');
    const chart = pairs.get('reference')!.chart;
    const run = helm(['template', 'release', chart, '--set', 'web.replicas=three']);
    const message = 'web.replicas: Invalid type. Expected: integer, given: string';
    expect(run.stderr).toContain(message);
    expect(text).toContain(`\`\`\`\n${message}\n\`\`\``);
  });
});
