import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as fc from 'fast-check';
import { App, Chart, Testing } from 'cdk8s';
import { ComposeApp } from '../../lib/app/compose-app';
import { SAFE_PRINTER_CONTEXT } from '../../lib/app/printer-safety';
import { parseAllDocuments } from 'yaml';
import { parseCommandLine } from '../../lib/cli/options/options';
import { renderProject } from '../../lib/cli/render';
import { manifestYaml } from '../../lib/base/manifest-yaml';
import { isComposeError } from '../../lib/compose/errors';
import { toYaml11 } from '../../lib/vm/yaml';
import { FUZZ_SEED, fuzzRuns } from '../fuzz/fuzz-settings';
import { DiscoveryServer, runTool, startDiscoveryServer, writeKubeconfig } from '../support/runbook-commands';
import { ROOT, removeTempDirs, tempDir } from '../cli/run-cli';

/**
 * Issue 25, finding 1: a compose value holding U+2028, U+2029, U+0085, a control character or a BOM is printed so
 * that every YAML reader the manifests meet reads back the same string, and no key appears that the object does not
 * have. The readers: the `yaml` library (YAML 1.1 and 1.2), PyYAML (`yaml.safe_load_all`, as kustomize plugins, Ansible
 * and cloud-init read YAML) and go-yaml through kubectl (`kubectl create --dry-run=client -o json`, against a local
 * server that answers API discovery only). Each generated string goes into every compose field that reaches a
 * manifest as text: an environment value, a command and an entrypoint argument, a healthcheck command, `working_dir`,
 * the image, an inline config's content and a bound file's content. The external readers run once for all samples.
 */

const python = spawnSync('python3', ['-c', 'import yaml'], { encoding: 'utf-8' }).status === 0;
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf-8' }).status === 0;
if (!python) {
  console.log('yaml-readers: PyYAML not checked, python3-yaml is missing (scripts/install-tools.sh installs it)');
}
if (!kubectl) {
  console.log('yaml-readers: go-yaml not checked, kubectl is missing');
}

afterAll(removeTempDirs);

/** Characters YAML readers treat specially, mixed with what makes a string look like YAML syntax. */
const SPECIAL = [
  '\u2028',
  '\u2029',
  '\u0085',
  '\ufeff',
  '\u0007',
  '\u001b',
  '\u007f',
  '\u0090',
  '\u00a0',
  '\ufffe',
  '\r',
  '\t',
  '\n',
  '\\',
  '"',
  "'",
  ': ',
  ' #',
  '- ',
  '---',
  '...',
  'hostPID: true',
  '  ',
  '{',
  '[',
  '&a',
  '*a',
  '!!str',
  '%',
  '@',
  '`',
  '|',
  '>',
  '=',
  '0o17',
  'yes',
  '~',
  'é',
  '😀',
];

const hostile = fc.oneof(
  {
    arbitrary: fc.stringOf(fc.constantFrom(...SPECIAL, 'a', 'b', ' ', ':'), { minLength: 1, maxLength: 8 }),
    weight: 4,
  },
  { arbitrary: fc.fullUnicodeString({ minLength: 1, maxLength: 12 }), weight: 1 },
);

/** The samples: the finding's own strings first, then generated ones. */
const SAMPLES: readonly string[] = [
  '/app\u2028hostPID: true\u2028volumes: [{name: r, hostPath: {path: /}}]',
  'x\u2029binaryData:\u2029  evil: ZXZpbA==',
  'a\u0085b',
  '\ufeffbom',
  ...fc.sample(hostile, { seed: FUZZ_SEED, numRuns: Math.max(12, 3 * fuzzRuns('library')) }),
].filter((s) => s.trim() !== '' && !s.includes('\0'));

/**
 * `text` as a YAML double-quoted scalar that compose reads back as `text` (`$` escaped from interpolation), in ASCII:
 * the compose file itself must be text.
 */
function composeString(text: string): string {
  return JSON.stringify(text.replace(/\$/g, '$$$$')).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** One service per sample, the sample in each text field; the bound files beside the compose file. */
function writeProject(dir: string, samples: readonly string[]): void {
  const lines = ['name: shop', 'services:'];
  samples.forEach((s, i) => {
    fs.writeFileSync(path.join(dir, `file-${i}.txt`), s);
    lines.push(
      `  s${i}:`,
      `    image: ${composeString(`nginx:1.27.2${s}`)}`,
      `    working_dir: ${composeString(`/srv/${s}`)}`,
      `    environment: {VALUE: ${composeString(s)}}`,
      `    entrypoint: ["/bin/sh", ${composeString(s)}]`,
      `    command: ["-c", ${composeString(s)}]`,
      `    healthcheck: {test: ["CMD", "test", ${composeString(s)}]}`,
      `    volumes: ["./file-${i}.txt:/etc/file.txt:ro"]`,
      `    configs: [{source: c${i}, target: /etc/config.txt}]`,
    );
  });
  lines.push('configs:', ...samples.map((s, i) => `  c${i}: {content: ${composeString(s)}}`), '');
  fs.writeFileSync(path.join(dir, 'compose.yaml'), lines.join('\n'));
}

interface Printed {
  readonly kind: string;
  readonly name: string;
  readonly yaml: string;
  /** The object as the constructs made it, through JSON (what a reader must give back). */
  readonly object: any;
}

/** Every string leaf of a value, by its key path. */
function stringLeaves(value: unknown, at = ''): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (v: unknown, p: string) => {
    if (typeof v === 'string') {
      out.set(p, v);
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, `${p}[${i}]`));
    } else if (v !== null && typeof v === 'object') {
      Object.entries(v).forEach(([k, item]) => walk(item, `${p}.${JSON.stringify(k)}`));
    }
  };
  walk(value, at);
  return out;
}

/** Every key path of a value (map keys and list positions). */
function keyPaths(value: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, p: string) => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        out.add(`${p}[${i}]`);
        walk(item, `${p}[${i}]`);
      });
    } else if (v !== null && typeof v === 'object') {
      Object.entries(v).forEach(([k, item]) => {
        out.add(`${p}.${JSON.stringify(k)}`);
        walk(item, `${p}.${JSON.stringify(k)}`);
      });
    }
  };
  walk(value, '');
  return out;
}

/** The kinds the local discovery server maps for kubectl. */
const KUBECTL_KINDS = new Set(['ConfigMap', 'Secret', 'Deployment', 'StatefulSet', 'Service', 'Job', 'CronJob']);

describe('finding 1: every reader reads back every string the CLI prints', () => {
  let printed: Printed[] = [];
  let server: DiscoveryServer | undefined;
  const work = fs.realpathSync(tempDir('yaml-readers'));

  beforeAll(async () => {
    const dir = path.join(work, 'shop');
    fs.mkdirSync(dir);
    writeProject(dir, SAMPLES);
    const parsed = parseCommandLine(['convert', '--stdout']);
    if (parsed.command !== 'convert') {
      throw new Error('expected convert');
    }
    const stage = path.join(work, 'stage');
    fs.mkdirSync(stage);
    const rendered = renderProject(parsed.options, { cwd: dir, env: { PATH: '/usr/bin:/bin' } }, stage);
    printed = rendered.waves.flatMap((w) =>
      w.objects.map((o) => ({
        kind: o.kind,
        name: o.name,
        yaml: o.yaml,
        object: JSON.parse(JSON.stringify(o.manifest)),
      })),
    );
    if (kubectl) {
      server = await startDiscoveryServer(path.join(ROOT, 'schemas'));
    }
  }, 120_000);

  afterAll(async () => server?.close());

  test('each sample reaches the manifests in every field', () => {
    const leaves = new Set(printed.flatMap((p) => [...stringLeaves(p.object).values()]));
    for (const s of SAMPLES) {
      expect([s, `/srv/${s}`].filter((v) => leaves.has(v))).toEqual([s, `/srv/${s}`]);
    }
    expect(printed.filter((p) => p.kind === 'Deployment')).toHaveLength(SAMPLES.length);
  });

  test('the yaml library (YAML 1.1 and 1.2) reads back each object as it is', () => {
    for (const version of ['1.1', '1.2'] as const) {
      const wrong = printed.filter((p) => {
        const docs = parseAllDocuments(p.yaml, { version });
        return (
          docs.length !== 1 || docs[0].errors.length > 0 || JSON.stringify(docs[0].toJS()) !== JSON.stringify(p.object)
        );
      });
      expect(wrong.map((p) => `${version} ${p.kind}/${p.name}: ${p.yaml}`)).toEqual([]);
    }
  });

  (python ? test : test.skip)('PyYAML reads back each object as it is', () => {
    const script =
      'import json, sys, yaml\n' +
      'docs = json.load(sys.stdin)\n' +
      'out = []\n' +
      'for text in docs:\n' +
      '    try:\n' +
      '        out.append(list(yaml.safe_load_all(text)))\n' +
      '    except Exception as e:\n' +
      '        out.append({"error": str(e)})\n' +
      'json.dump(out, sys.stdout)\n';
    const result = execFileSync('python3', ['-c', script], {
      input: JSON.stringify(printed.map((p) => p.yaml)),
      encoding: 'utf-8',
      maxBuffer: 256 * 1024 * 1024,
    });
    const read: unknown[] = JSON.parse(result);
    const wrong = printed.filter((p, i) => JSON.stringify(read[i]) !== JSON.stringify([p.object]));
    expect(
      wrong.map((p) => `${p.kind}/${p.name}: ${JSON.stringify(read[printed.indexOf(p)]).slice(0, 400)}\n${p.yaml}`),
    ).toEqual([]);
  });

  (kubectl ? test : test.skip)(
    'kubectl (go-yaml) reads each string back, and no key the object does not have',
    async () => {
      const checked = printed.filter((p) => KUBECTL_KINDS.has(p.kind));
      const file = path.join(work, 'all.yaml');
      fs.writeFileSync(file, checked.map((p) => p.yaml).join('---\n'));
      const kubeconfig = path.join(work, 'kubeconfig');
      writeKubeconfig(kubeconfig, server!.url);
      // Asynchronously: the discovery server answers from this process.
      const run = await runTool(
        ['kubectl', 'create', '--validate=false', '--dry-run=client', '-o', 'json', '-f', file],
        {
          cwd: work,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', KUBECONFIG: kubeconfig, HOME: os.tmpdir() },
          timeoutMs: 60_000,
        },
      );
      expect(run.stderr).toBe('');
      const objects = run.stdout
        .split(/^}\n(?={)/m)
        .map((text, i, all) => JSON.parse(i < all.length - 1 ? `${text}}` : text));
      expect(objects).toHaveLength(checked.length);
      const problems: string[] = [];
      checked.forEach((p, i) => {
        const read = objects[i];
        const readLeaves = stringLeaves(read);
        for (const [at, value] of stringLeaves(p.object)) {
          if (readLeaves.get(at) !== value) {
            problems.push(
              `${p.kind}/${p.name} ${at}: ${JSON.stringify(readLeaves.get(at))} for ${JSON.stringify(value)}`,
            );
          }
        }
        const known = keyPaths(p.object);
        for (const at of keyPaths(read)) {
          if (!known.has(at)) {
            problems.push(`${p.kind}/${p.name}: a key the object does not have: ${at}`);
          }
        }
      });
      expect(problems).toEqual([]);
    },
    90_000,
  );
});

describe('finding 1: the printer', () => {
  test('U+2028, U+2029, U+0085, the BOM and C1 controls are escaped in double quotes', () => {
    expect(
      manifestYaml({ a: 'x\u2028hostPID: true', b: 'x\u2029y', c: 'a\u0085b', d: '\ufeffx', e: 'a\u0090\u007f' }),
    ).toBe('a: "x\\LhostPID: true"\nb: "x\\Py"\nc: "a\\Nb"\nd: "\\uFEFFx"\ne: "a\\x90\\x7F"\n');
  });

  test('a string with line breaks and one of them is one double-quoted line', () => {
    expect(manifestYaml({ a: 'one\ntwo\u2028\n' })).toBe('a: "one\\ntwo\\L\\n"\n');
  });

  test('an object with such a string and what only Yaml.stringify printed (a null, a float) is printed whole, safely', () => {
    expect(manifestYaml({ a: 'x\u2028y', b: null, c: 1.5, d: '---x' })).toBe(
      'a: "x\\Ly"\nb: null\nc: 1.5\nd: "---x"\n',
    );
  });

  test('strings a YAML 1.2 reader (0o17) or PyYAML (=) reads otherwise are quoted', () => {
    expect(manifestYaml({ a: '0o17', b: '=' })).toBe('a: "0o17"\nb: "="\n');
  });

  test('a lone surrogate is refused with the object and key path', () => {
    let error: unknown;
    try {
      manifestYaml({ kind: 'ConfigMap', metadata: { name: 'web-env' }, data: { NOTE: 'x\ud800' } });
    } catch (e) {
      error = e;
    }
    expect(isComposeError(error)).toBe(true);
    expect((error as Error).message).toBe(
      'the ConfigMap "web-env" holds a string with a lone UTF-16 surrogate (U+D800) at data.NOTE, which neither ' +
        'UTF-8 nor YAML can carry. Fix: remove the escape (such as "\\ud800") from the compose value, or write the ' +
        'whole character.',
    );
  });
});

describe("finding 1: the golden image's compose file and cloud-init user data (YAML 1.1 for PyYAML)", () => {
  (python ? test : test.skip)('every sample reads back through PyYAML and the yaml library as it is', () => {
    const doc = {
      services: Object.fromEntries(
        SAMPLES.map((s, i) => [
          `s${i}`,
          { working_dir: `/srv/${s}`, environment: { VALUE: s }, command: ['sh', '-c', s], labels: { note: s } },
        ]),
      ),
      runcmd: SAMPLES.map((s) => ['echo', s]),
    };
    const text = toYaml11(doc);
    const read = execFileSync(
      'python3',
      ['-c', 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin.read()), sys.stdout)'],
      {
        input: text,
        encoding: 'utf-8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    expect(JSON.parse(read)).toEqual(doc);
    expect(parseAllDocuments(text, { version: '1.1' })[0].toJS()).toEqual(doc);
  });
});

describe("finding 1: the library's cdk8s synth, whose printer (cdk8s's Yaml.stringify) writes U+2028 raw", () => {
  const compose = [
    'services:',
    '  web:',
    '    image: nginx:1.27.2',
    `    working_dir: ${composeString('/app\u2028hostPID: true')}`,
    `    environment: {NOTE: ${composeString('a\u0085b')}}`,
    '',
  ].join('\n');

  function app(context: Record<string, unknown> = {}): Chart {
    const dir = fs.realpathSync(tempDir('yaml-library'));
    fs.writeFileSync(path.join(dir, 'compose.yaml'), compose);
    const cdk8sApp = new App({ outdir: path.join(dir, 'dist') });
    Object.entries(context).forEach(([key, value]) => cdk8sApp.node.setContext(key, value));
    const chart = new Chart(cdk8sApp, 'c');
    new ComposeApp(chart, 'app', { composeFile: path.join(dir, 'compose.yaml') });
    return chart;
  }

  test('refuses a value holding a YAML 1.1 line break, naming its compose path', () => {
    expect(() => Testing.synth(app())).toThrow(
      "compose.yaml:3:5: services.web: its workingDir holds U+2028, which cdk8s's YAML printer writes as it is " +
        'and YAML 1.1 readers (kubectl, PyYAML) take for a line break: the rest of the value would be read as keys of ' +
        'the manifest. Fix: remove the character, or convert with the cdk8s-compose CLI, whose printer escapes it',
    );
    expect(() => Testing.synth(app())).toThrow('services.web.environment.NOTE: its value holds U+0085');
  });

  test('a program that prints with the safe printer says so, and the value is kept', () => {
    const manifests = Testing.synth(app({ [SAFE_PRINTER_CONTEXT]: true }));
    const deployment = manifests.find((m) => m.kind === 'Deployment');
    expect(deployment.spec.template.spec.containers[0].workingDir).toBe('/app\u2028hostPID: true');
    expect(manifestYaml(deployment)).toContain('workingDir: "/app\\LhostPID: true"');
  });
});
