/**
 * The stack's floor: what cdk8s and cdk8s-plus-27 alone take to make the objects `convert` writes for an app, with
 * none of this library. The bench counts the kinds of the objects in a converted app and hands the counts here; this
 * builds as many objects of each kind, each as plainly as the stack allows (a workload of one container with a port,
 * its environment from a ConfigMap and a Secret key, a readiness probe, requests and limits; a Service selecting a
 * workload; an Ingress to a Service; cdk8s-plus-27 for the kinds it has, an `ApiObject` with a small spec for the
 * others), resolves them once (`chart.toJson()`, cdk8s's validation and resolution), prints each with cdk8s's
 * `Yaml.stringify` (what `App.synth()` prints with) and writes them, one file each. Nothing is read from a compose
 * file, checked, verified or explained. The phases are printed apart: `convert` prints with a printer of its own, so
 * its floor is the wall time without the `yaml` phase; the library synth's is the whole wall time.
 *
 * The bench runs it as the CLI runs: bundled by esbuild with the CLI's options and compiled from a V8 code cache made
 * by a first run (bench/bundle-loader.ts), so that the two start alike.
 *
 * Arguments: <counts JSON file> <output folder>. Prints the phase times as JSON on stdout; exits 1 when the stack made
 * a different number of objects than counted.
 */
import * as fs from 'fs';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { ApiObject, App, Chart, Cron, Size, Yaml } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { phaseSeconds } from './phases';

/** How many objects of each kind (`Deployment`: 880, ...). */
export type KindCounts = Readonly<Record<string, number>>;

/** The kinds this builds with cdk8s-plus-27; every other kind is an `ApiObject`. */
const WORKLOADS = ['Deployment', 'Job', 'CronJob'];

/** Builds `counts` objects in `chart`, workloads last so that they can name the objects they use. */
export function buildFloor(chart: Chart, counts: KindCounts): void {
  const take = (kind: string) => counts[kind] ?? 0;
  const each = <T>(kind: string, make: (i: number) => T): T[] => Array.from({ length: take(kind) }, (_, i) => make(i));

  each('Namespace', (i) => new kplus.Namespace(chart, `namespace-${i}`));
  const accounts = each('ServiceAccount', (i) => new kplus.ServiceAccount(chart, `sa-${i}`, { automountToken: false }));
  const roles = each('Role', (i) => {
    const role = new kplus.Role(chart, `role-${i}`);
    role.allowRead(kplus.ApiResource.CONFIG_MAPS);
    return role;
  });
  each('RoleBinding', (i) => {
    const binding = new kplus.RoleBinding(chart, `rolebinding-${i}`, { role: pick(roles, i, 'Role') });
    binding.addSubjects(pick(accounts, i, 'ServiceAccount'));
  });
  const secrets = each(
    'Secret',
    (i) => new kplus.Secret(chart, `secret-${i}`, { stringData: { PASSWORD: `pw-${i}`, USER: 'app' } }),
  );
  const maps = each(
    'ConfigMap',
    (i) =>
      new kplus.ConfigMap(chart, `configmap-${i}`, {
        data: { LOG_LEVEL: 'info', API_URL: `http://api-${i}:8000` },
      }),
  );
  each(
    'PersistentVolumeClaim',
    (i) =>
      new kplus.PersistentVolumeClaim(chart, `pvc-${i}`, {
        storage: Size.gibibytes(1),
        accessModes: [kplus.PersistentVolumeAccessMode.READ_WRITE_ONCE],
      }),
  );
  const container = (i: number, port?: number): kplus.ContainerProps => ({
    image: `ghcr.io/example/app-${i}:1.0`,
    portNumber: port,
    securityContext: { ensureNonRoot: false, readOnlyRootFilesystem: false },
    envVariables: {
      LOG_LEVEL: kplus.EnvValue.fromConfigMap(pick(maps, i, 'ConfigMap'), 'LOG_LEVEL'),
      PASSWORD: kplus.EnvValue.fromSecretValue({ secret: pick(secrets, i, 'Secret'), key: 'PASSWORD' }),
    },
    readiness: port === undefined ? undefined : kplus.Probe.fromHttpGet('/', { port }),
    resources: {
      cpu: { request: kplus.Cpu.millis(100), limit: kplus.Cpu.millis(500) },
      memory: { request: Size.mebibytes(128), limit: Size.mebibytes(256) },
    },
  });
  const pod = { securityContext: { ensureNonRoot: false }, automountServiceAccountToken: false };
  const deployments = each(
    'Deployment',
    (i) => new kplus.Deployment(chart, `deployment-${i}`, { ...pod, replicas: 1, containers: [container(i, 8000)] }),
  );
  each('Job', (i) => new kplus.Job(chart, `job-${i}`, { ...pod, containers: [container(i)] }));
  each(
    'CronJob',
    (i) => new kplus.CronJob(chart, `cronjob-${i}`, { ...pod, schedule: Cron.daily(), containers: [container(i)] }),
  );
  const services = each(
    'Service',
    (i) =>
      new kplus.Service(chart, `service-${i}`, {
        selector: pick(deployments, i, 'Deployment'),
        ports: [{ port: 8000, targetPort: 8000 }],
      }),
  );
  each('Ingress', (i) => {
    const ingress = new kplus.Ingress(chart, `ingress-${i}`);
    ingress.addHostRule(`app-${i}.example.com`, '/', kplus.IngressBackend.fromService(pick(services, i, 'Service')));
  });
  const built = new Set([
    'Namespace',
    'ServiceAccount',
    'Role',
    'RoleBinding',
    'Secret',
    'ConfigMap',
    'PersistentVolumeClaim',
    'Service',
    'Ingress',
    ...WORKLOADS,
  ]);
  for (const kind of Object.keys(counts).filter((k) => !built.has(k))) {
    each(kind, (i) => plainObject(chart, kind, i));
  }
}

/** The `i`th of `objects`, round robin; a clear error when the counts hold none of a kind another one needs. */
function pick<T>(objects: readonly T[], i: number, kind: string): T {
  if (objects.length === 0) {
    throw new Error(`stack-floor: the counts hold no ${kind}, which the workloads, bindings and Services use`);
  }
  return objects[i % objects.length];
}

/** An object of a kind cdk8s-plus-27 has no class for, with a spec of a NetworkPolicy's size. */
function plainObject(chart: Chart, kind: string, i: number): ApiObject {
  return new ApiObject(chart, `${kind.toLowerCase()}-${i}`, {
    apiVersion: kind === 'NetworkPolicy' ? 'networking.k8s.io/v1' : 'example.com/v1',
    kind,
    spec: {
      podSelector: { matchLabels: { app: `app-${i}` } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 8000, protocol: 'TCP' }] }],
    },
  });
}

/** Each manifest as an `ApiObject` of `chart`, as it is. */
export function buildManifests(chart: Chart, manifests: readonly Manifest[]): void {
  manifests.forEach((manifest, i) => new ApiObject(chart, `object-${i}`, manifest));
}

/** A manifest as `convert` wrote it, parsed. */
export type Manifest = Readonly<Record<string, unknown>> & { readonly apiVersion: string; readonly kind: string };

/**
 * One floor, printing its phases as JSON: `kinds <counts JSON file> <output folder>` builds as many objects of each
 * kind with cdk8s-plus-27 (`buildFloor`); `manifests <manifests JSON file> <output folder>` makes each manifest an
 * `ApiObject` as it is, so that cdk8s alone resolves, prints and writes the very content `convert` wrote.
 */
export function main(argv: readonly string[]): void {
  const [mode, inputFile, outdir] = argv;
  const modules = performance.now();
  const input: unknown = JSON.parse(fs.readFileSync(inputFile, 'utf-8'));
  const load = performance.now();

  const chart = new Chart(new App(), 'floor', { namespace: 'floor' });
  let expected: number;
  if (mode === 'kinds') {
    buildFloor(chart, input as KindCounts);
    expected = Object.values(input as KindCounts).reduce((sum, n) => sum + n, 0);
  } else if (mode === 'manifests') {
    buildManifests(chart, input as Manifest[]);
    expected = (input as Manifest[]).length;
  } else {
    throw new Error(`stack-floor: the mode is kinds or manifests; got "${mode}"`);
  }
  const construct = performance.now();

  const objects = chart.toJson();
  const resolve = performance.now();

  const texts = objects.map((object) => Yaml.stringify(object));
  const yaml = performance.now();

  fs.mkdirSync(outdir, { recursive: true });
  objects.forEach((object, i) => {
    fs.writeFileSync(path.join(outdir, `${i}-${String(object.kind).toLowerCase()}.yaml`), texts[i]);
  });
  const write = performance.now();

  if (objects.length !== expected) {
    process.stderr.write(`stack-floor: made ${objects.length} objects, ${expected} counted\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`${JSON.stringify(phaseSeconds({ modules, load, construct, resolve, yaml, write }))}\n`);
}
