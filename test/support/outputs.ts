import * as fs from 'fs';
import * as path from 'path';
import { App, Chart } from 'cdk8s';
import { parse } from 'yaml';
import { ComposeApp } from '../../lib/app/compose-app';
import { formatWarning } from '../../lib/compose/errors';
import { LoadComposeOptions } from '../../lib/compose/load';
import { ReferenceChart, referenceAppDir } from '../../lib/reference-chart';
import { ReferencePlatformChart } from '../../lib/reference-platform-chart';
import { ComposeVmChart } from '../../lib/vm/compose-vm-chart';
import { GoldenImageBundle } from '../../lib/vm/golden-image-bundle';
import { KubeVirtPlatform } from '../../lib/vm/kubevirt-platform';
import { appCheckOptions } from './app-checks';
import { CheckOptions } from './checks';
import { Manifest } from './problems';
import { SafetyText } from './safety-rules';
import { readYamlFiles } from './yaml-docs';
import { CORPUS_DIR } from './shared';
import { listFiles } from './files';

export { listFiles };

/**
 * Every output the library can produce, written to disk the way `npm run synth` writes `dist/` (`app.synth()`, then
 * the golden-image bundles), and read back as kubectl reads it: the reference app, each corpus file through
 * ComposeApp, and the VM examples. Conformance, determinism and the safety lint all run over these.
 */

export const ROOT = path.resolve(__dirname, '../..');
export const DIST = path.join(ROOT, 'dist');
export const CORPUS = CORPUS_DIR;
export const CORPUS_DIRS = fs
  .readdirSync(CORPUS)
  .filter((d) => fs.statSync(path.join(CORPUS, d)).isDirectory())
  .sort();
/** The shell environment the corpus is converted with: nothing from the machine. */
export const CORPUS_ENV = { PATH: '/usr/bin:/bin' };
export const VM_FIXTURE = path.join(ROOT, 'test/vm/fixtures/legacy');

/** One output written to a folder. */
export interface WrittenOutput {
  readonly name: string;
  readonly dir: string;
  /** Every file written, relative to `dir`, sorted. */
  readonly files: readonly string[];
  /** The documents of the manifest files (`*.k8s.yaml`), read back from disk. */
  readonly docs: Manifest[];
  /** The options the documents must pass `expectManifestsPass` with (texts included). */
  readonly options: CheckOptions;
  /** Texts written or printed next to the manifests: warnings, the golden-image bundle's files. */
  readonly texts: readonly SafetyText[];
}

/** The manifest documents of a written folder (`*.k8s.yaml`: a bundle's compose.yaml is not a manifest). */
export function manifestDocs(dir: string): Manifest[] {
  return readYamlFiles(dir)
    .filter((f) => f.file.endsWith('.k8s.yaml'))
    .flatMap((f) => f.docs);
}

function bundleTexts(dir: string, files: readonly string[]): SafetyText[] {
  return files
    .filter((f) => f.startsWith('golden-image/'))
    .map((f) => ({ name: f, content: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

function warningsText(app: ComposeApp): SafetyText {
  return { name: 'warnings', content: app.warnings.map(formatWarning).join('\n') };
}

/** Synthesizes `app` into `dir` as `npm run synth` does and reads the result back. */
function write(
  name: string,
  dir: string,
  app: App,
  options: (docs: Manifest[]) => CheckOptions,
  texts: SafetyText[] = [],
): WrittenOutput {
  app.synth();
  GoldenImageBundle.synthesizeAll(app);
  const files = listFiles(dir);
  const docs = manifestDocs(dir);
  const allTexts = [...texts, ...bundleTexts(dir, files)];
  return { name, dir, files, docs, options: { ...options(docs), texts: allTexts }, texts: allTexts };
}

/** The fake secret values of the reference app (its .env and secret files). */
export function referenceSecrets(): string[] {
  const dir = referenceAppDir();
  const fromEnv = fs
    .readFileSync(path.join(dir, '.env'), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => line.slice(line.indexOf('=') + 1));
  const fromFiles = fs
    .readdirSync(path.join(dir, 'secrets'))
    .map((f) => fs.readFileSync(path.join(dir, 'secrets', f), 'utf8').trim());
  return [...fromEnv, ...fromFiles].filter((v) => v !== '');
}

/**
 * What `npm run synth` writes into `dist/`, written into `dir`: the reference app, its platform and bundle.
 * `composeDir` replaces examples/reference (a reordered copy).
 */
export function writeReference(dir: string, composeDir?: string): WrittenOutput {
  const app = new App({ outdir: dir });
  const chart = new ReferenceChart(app, 'shop', { composeDir });
  new ReferencePlatformChart(app, 'platform');
  return write(
    'reference',
    dir,
    app,
    (docs) => {
      const options = appCheckOptions(chart.app, docs);
      return { ...options, secretValues: [...new Set([...(options.secretValues ?? []), ...referenceSecrets()])] };
    },
    [warningsText(chart.app)],
  );
}

/** The committed `dist/`, with the checks of a fresh reference synth. */
export function readDist(reference: WrittenOutput): WrittenOutput {
  const files = listFiles(DIST);
  const texts = [reference.texts.find((t) => t.name === 'warnings')!, ...bundleTexts(DIST, files)];
  return { name: 'dist', dir: DIST, files, docs: manifestDocs(DIST), options: { ...reference.options, texts }, texts };
}

/** Images for a corpus file's build-only services (the corpus holds no build contexts). */
export function corpusImages(dir: string): Record<string, string> {
  const doc = parse(fs.readFileSync(path.join(CORPUS, dir, 'compose.yaml'), 'utf8'), { merge: true });
  const images: Record<string, string> = {};
  for (const [name, service] of Object.entries<any>(doc?.services ?? {})) {
    if (service && service.build !== undefined && service.image === undefined) {
      images[name] = `registry.example.com/${dir}/${name.toLowerCase()}:1.0`;
    }
  }
  return images;
}

/** The load options of a corpus folder. */
export function corpusLoadOptions(dir: string): Omit<LoadComposeOptions, 'files'> {
  return { workingDir: path.join(CORPUS, dir), env: CORPUS_ENV, images: corpusImages(dir) };
}

/** One corpus file through ComposeApp, written into `dir`; `projectDir` replaces the corpus folder (a copy). */
export function writeCorpusApp(corpusDir: string, dir: string, projectDir?: string): WrittenOutput {
  const app = new App({ outdir: dir });
  const composeApp = new ComposeApp(new Chart(app, corpusDir.toLowerCase()), 'app', {
    composeFile: 'compose.yaml',
    loadOptions: { ...corpusLoadOptions(corpusDir), ...(projectDir ? { workingDir: projectDir } : {}) },
  });
  return write(`corpus/${corpusDir}`, dir, app, (docs) => appCheckOptions(composeApp, docs), [
    warningsText(composeApp),
  ]);
}

/** The VM examples: a legacy app in a ComposeVmChart with its Ingress, and the KubeVirt platform, written into `dir`. */
export function writeVmExample(dir: string): WrittenOutput {
  const app = new App({ outdir: dir });
  new ComposeVmChart(app, 'legacy', {
    namespace: 'legacy',
    composeFile: path.join(VM_FIXTURE, 'compose.yaml'),
    loadOptions: { env: {} },
    services: ['agent', 'app'],
    imageBaseUrl: 'https://images.example.com/vm',
    ingress: { service: 'app', host: 'legacy.example.com' },
  });
  new KubeVirtPlatform(new Chart(app, 'platform'), 'platform');
  const secrets = [
    's3cr3t-db-pass',
    'tok-9f8e7d6c5b4a',
    fs.readFileSync(path.join(VM_FIXTURE, 'db_password.txt'), 'utf8').trim(),
  ];
  return write('vm/legacy', dir, app, () => ({ secretValues: secrets }));
}
