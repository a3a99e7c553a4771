import { Manifest } from './problems';

/**
 * Every wait of a converted app, with the sync wave of who waits and of what it waits for: init containers
 * (`kubectl wait …/<name>`, `kubectl rollout status`, `nc -z <host> <port>` on a Service and the pods behind it), the
 * VM's unit (`/dev/tcp/<host>/<port>` before `docker compose up`), and Flux's Kustomizations (`dependsOn` and
 * `healthChecks`). Argo CD syncs a wave only once the one before is healthy, so a wait on a later wave never ends.
 */

const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
const WORKLOADS = ['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'];
const KINDS: Readonly<Record<string, string>> = {
  virtualmachine: 'VirtualMachine',
  deployment: 'Deployment',
  statefulset: 'StatefulSet',
  daemonset: 'DaemonSet',
  job: 'Job',
};

/** One wait: who, on what, how, and both waves. */
export interface WaveWait {
  readonly waiter: string;
  readonly waited: string;
  readonly how: string;
  readonly waiterWave: number;
  readonly waitedWave: number;
}

const waveOf = (doc: Manifest | undefined): number => Number(doc?.metadata?.annotations?.[SYNC_WAVE] ?? NaN);
const id = (doc: Manifest) => `${doc.kind}/${doc.metadata.name}`;

function podTemplate(doc: Manifest): any {
  return doc.kind === 'CronJob'
    ? doc.spec.jobTemplate.spec.template
    : doc.kind === 'VirtualMachine'
      ? doc.spec.template
      : doc.spec?.template;
}

function selects(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  const keys = Object.keys(selector);
  return keys.length > 0 && keys.every((k) => labels?.[k] === selector[k]);
}

/** The Service of that name and every workload or VM whose pods it selects. */
function serviceAndBackends(docs: readonly Manifest[], host: string): Manifest[] {
  const service = docs.find((d) => d.kind === 'Service' && d.metadata.name === host);
  if (!service) {
    return [];
  }
  const backends = docs.filter(
    (d) =>
      [...WORKLOADS, 'VirtualMachine'].includes(d.kind) &&
      selects(service.spec?.selector ?? {}, podTemplate(d)?.metadata?.labels),
  );
  return [service, ...backends];
}

/**
 * The waits of the manifests (each with a sync-wave annotation), of the VM units' texts, and of Flux's
 * Kustomizations (whose `path` ends in the wave folder, `<n>-<kind>`). A wait whose target is missing is listed with
 * the wave NaN, so that the caller sees it.
 */
export function waveWaits(
  docs: readonly Manifest[],
  units: readonly { vm: string; text: string }[] = [],
  flux: readonly Manifest[] = [],
): WaveWait[] {
  const waits: WaveWait[] = [];
  const add = (waiter: Manifest, targets: Manifest[], how: string, named: string) => {
    if (targets.length === 0) {
      waits.push({ waiter: id(waiter), waited: named, how, waiterWave: waveOf(waiter), waitedWave: NaN });
    }
    for (const target of targets) {
      waits.push({
        waiter: id(waiter),
        waited: id(target),
        how,
        waiterWave: waveOf(waiter),
        waitedWave: waveOf(target),
      });
    }
  };
  for (const doc of docs.filter((d) => WORKLOADS.includes(d.kind))) {
    for (const init of podTemplate(doc)?.spec?.initContainers ?? []) {
      const args: string[] = init.args ?? [];
      if (args[0] === 'wait' || args[0] === 'rollout') {
        const [kind, name] = args[args.length - 1].split('/');
        const target = docs.filter((d) => d.kind === KINDS[kind] && d.metadata.name === name);
        add(doc, target, `init container ${init.name}: kubectl ${args[0]}`, `${kind}/${name}`);
      }
      const script: string = (init.command ?? []).join(' ');
      for (const match of script.matchAll(/nc -z -w \d+ (\S+) (\d+)/g)) {
        add(
          doc,
          serviceAndBackends(docs, match[1]),
          `init container ${init.name}: nc -z ${match[1]} ${match[2]}`,
          match[1],
        );
      }
    }
  }
  for (const unit of units) {
    const vm = docs.find((d) => d.kind === 'VirtualMachine' && d.metadata.name === unit.vm);
    for (const match of unit.text.matchAll(/\/dev\/tcp\/([^/\s]+)\/(\d+)/g)) {
      if (vm) {
        add(vm, serviceAndBackends(docs, match[1]), `the VM's unit waits for ${match[1]}:${match[2]}`, match[1]);
      }
    }
  }
  const folderWave = (path: string) => Number(/(\d+)-[a-z-]+\/?$/.exec(path)?.[1] ?? NaN);
  for (const kustomization of flux.filter((d) => d.kind === 'Kustomization')) {
    const own = folderWave(kustomization.spec.path);
    for (const dependency of kustomization.spec.dependsOn ?? []) {
      const other = flux.find((d) => d.kind === 'Kustomization' && d.metadata.name === dependency.name);
      waits.push({
        waiter: `Kustomization/${kustomization.metadata.name}`,
        waited: `Kustomization/${dependency.name}`,
        how: 'Flux dependsOn',
        waiterWave: own,
        waitedWave: other ? folderWave(other.spec.path) : NaN,
      });
    }
    for (const check of kustomization.spec.healthChecks ?? []) {
      const target = docs.find((d) => d.kind === check.kind && d.metadata.name === check.name);
      waits.push({
        waiter: `Kustomization/${kustomization.metadata.name}`,
        waited: `${check.kind}/${check.name}`,
        how: 'Flux healthCheck',
        waiterWave: own,
        waitedWave: waveOf(target),
      });
    }
  }
  return waits;
}

/** The waits that point at a later wave, or at nothing: each would hold its sync forever. */
export function waitsOnLaterWaves(waits: readonly WaveWait[]): string[] {
  return waits
    .filter((w) => !(w.waitedWave <= w.waiterWave))
    .map((w) => `${w.waiter} (wave ${w.waiterWave}) → ${w.waited} (wave ${w.waitedWave}): ${w.how}`);
}
