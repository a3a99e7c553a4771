import { ApiObject } from 'cdk8s';
import { ComposeWarning } from '../compose/errors';
import { ComposeModel, ComposeService, FileContent } from '../compose/model';
import { waitContainerName } from './dependency-wait';
import { HostRewriter } from './host-rewrite';
import { MigratedService, WorkloadKind } from './migrated-service';
import { EvaluatedPod, PolicyEvaluator, matches } from './policy-evaluator';
import { Reachability } from './reachability';
import { compare } from '../util/sort';

/**
 * `verify`: what compose promises each service, checked against the rendered manifests. The expectations come from
 * the compose model (every (client, name, port) reference and every pair on a shared network, the effective
 * environment, every file and volume mounted, every depends_on); each is checked on the objects as they would be
 * applied: the name resolves to a Service with that port and a NetworkPolicy admits the client, the environment with
 * its ConfigMap and Secret references resolved equals compose's (but for the reported host rewrites), each file is
 * mounted at its path with the same bytes, each dependency has a wait. What the app already reported as something
 * the user must do (an external secret, a host path) is `reported`, not `broken`.
 */

/** What an expectation is about. */
export enum VerifyCheck {
  /** A name and port one service uses to reach another. */
  REACH = 'reach',
  /** Two services on a shared network reach each other's ports; services on no shared network do not. */
  NETWORK = 'network',
  ENV = 'env',
  FILE = 'file',
  VOLUME = 'volume',
  DEPENDS_ON = 'depends_on',
}

export enum VerifyStatus {
  /** The expectation holds in the manifests. */
  OK = 'ok',
  /** It does not hold, and a warning of the app says so and what to do. */
  REPORTED = 'reported',
  /** It does not hold, and nothing said so. */
  BROKEN = 'broken',
}

/** One expectation and its outcome. */
export interface VerifyExpectation {
  /** The compose service it belongs to (the client of a reference). */
  readonly service: string;
  readonly check: VerifyCheck;
  /** What is expected, e.g. `api:8000 (services.web.environment.API_URL)`, `env LOG_LEVEL`, `/etc/certs/a.pem`. */
  readonly subject: string;
  readonly status: VerifyStatus;
  /** Why it holds or not. */
  readonly detail: string;
}

/** The outcome of `verify`. */
export interface VerifyReport {
  /** Sorted by service, then check, then subject. */
  readonly expectations: readonly VerifyExpectation[];
  readonly ok: number;
  readonly reported: number;
  readonly broken: number;
}

/** What `verifyManifests` needs from a `ComposeApp`. */
export interface VerifiedApp {
  readonly model: ComposeModel;
  readonly namespace: string;
  readonly reachability: Reachability;
  readonly hosts: HostRewriter;
  readonly services: readonly MigratedService[];
  readonly vmServices: readonly { readonly composeName: string; readonly name: string }[];
  readonly warnings: readonly ComposeWarning[];
}

type Labels = Readonly<Record<string, string>>;

interface Pod {
  readonly labels: Labels;
  readonly spec: any;
  readonly container: any;
}

/** Checks the expectations of the compose model against the manifests (the chart's `toJson()`). */
export function verifyManifests(app: VerifiedApp, manifests: readonly any[]): VerifyReport {
  return new Verifier(app, manifests).run();
}

/** One line: `verify: 120 expectations: 118 hold, 2 reported, 0 broken`. */
export function verifySummary(report: VerifyReport): string {
  return `verify: ${report.expectations.length} expectations: ${report.ok} hold, ${report.reported} reported, ${report.broken} broken`;
}

class Verifier {
  private readonly byKind = new Map<string, any[]>();
  private readonly byName = new Map<string, any>();
  private readonly results: VerifyExpectation[] = [];
  private readonly pods = new Map<string, Pod>();
  /**
   * The warnings at each compose path and below it, by that path: a warning at `services.a.environment.X` is listed
   * under `services`, `services.a`, `services.a.environment` and itself (in the order of the app's warnings), so that
   * looking a path up is one step instead of a scan of every warning.
   */
  private readonly warnedUnder = new Map<string, ComposeWarning[]>();
  private readonly inVm: ReadonlySet<string>;
  private readonly migrated: ReadonlyMap<string, MigratedService>;
  private readonly policies: PolicyEvaluator;

  constructor(private readonly app: VerifiedApp, manifests: readonly any[]) {
    for (const manifest of manifests) {
      if (manifest?.metadata?.namespace !== undefined && manifest.metadata.namespace !== app.namespace) {
        continue;
      }
      const list = this.byKind.get(manifest.kind) ?? [];
      list.push(manifest);
      this.byKind.set(manifest.kind, list);
      this.byName.set(`${manifest.kind}/${manifest.metadata?.name}`, manifest);
    }
    const warnedPaths = new Map<string, ComposeWarning[]>();
    for (const warning of app.warnings) {
      warnedPaths.set(warning.at.path, [...(warnedPaths.get(warning.at.path) ?? []), warning]);
    }
    for (const [at, warnings] of warnedPaths) {
      const prefixes = [at];
      for (let i = 0; i < at.length; i++) {
        if (at[i] === '.' || at[i] === '[') {
          prefixes.push(at.slice(0, i));
        }
      }
      for (const prefix of new Set(prefixes)) {
        const under = this.warnedUnder.get(prefix);
        if (under) {
          under.push(...warnings);
        } else {
          this.warnedUnder.set(prefix, [...warnings]);
        }
      }
    }
    this.inVm = new Set(app.vmServices.map((s) => s.composeName));
    this.policies = new PolicyEvaluator(this.byKind.get('NetworkPolicy') ?? []);
    this.migrated = new Map(app.services.map((s) => [s.composeName, s]));
    for (const service of app.services) {
      const workload = this.find(ApiObject.of(service.workload).kind, service.workload.name);
      const template = workload?.kind === 'CronJob' ? workload.spec.jobTemplate.spec.template : workload?.spec?.template;
      if (template) {
        const container = (template.spec.containers ?? []).find((c: any) => c.name === service.container.name) ?? template.spec.containers[0];
        this.pods.set(service.composeName, { labels: template.metadata?.labels ?? {}, spec: template.spec, container });
      }
    }
  }

  public run(): VerifyReport {
    const services = new Map(this.app.services.map((s) => [s.composeName, s]));
    for (const service of this.app.model.services) {
      const migrated = services.get(service.name);
      if (!migrated) {
        continue;
      }
      this.checkEnvironment(service);
      this.checkMounts(service);
      this.checkDependencies(service, migrated);
    }
    this.checkReferences();
    this.checkNetworks();
    const sorted = this.results.sort((a, b) => compare(a.service, b.service) || compare(a.check, b.check) || compare(a.subject, b.subject));
    return {
      expectations: sorted,
      ok: sorted.filter((e) => e.status === VerifyStatus.OK).length,
      reported: sorted.filter((e) => e.status === VerifyStatus.REPORTED).length,
      broken: sorted.filter((e) => e.status === VerifyStatus.BROKEN).length,
    };
  }

  private add(service: string, check: VerifyCheck, subject: string, status: VerifyStatus, detail: string): void {
    this.results.push({ service, check, subject, status, detail });
  }

  private find(kind: string, name: string): any {
    return this.byName.get(`${kind}/${name}`);
  }

  /** A warning at this compose path (or below it) with one of the codes. */
  private warned(path: string, codes: readonly string[]): ComposeWarning | undefined {
    return this.warnedUnder.get(path)?.find((w) => codes.includes(w.code));
  }

  // References and networks ---------------------------------------------------------------------------------------

  private checkReferences(): void {
    for (const ref of this.app.reachability.references) {
      if (this.inVm.has(ref.client) || ref.client === ref.server) {
        continue;
      }
      const subject = `${ref.name}${ref.port !== undefined ? `:${ref.port}` : ''} → ${ref.server} (${ref.what})`;
      const server = this.serverName(ref.server);
      if (server === undefined) {
        this.add(ref.client, VerifyCheck.REACH, subject, VerifyStatus.BROKEN, `service "${ref.server}" is not in the manifests`);
        continue;
      }
      let name = ref.name.toLowerCase();
      const rewritten = this.warned(ref.at.path, ['host-rewrite']);
      if (ref.source === 'environment' && rewritten?.message.includes(`host "${ref.name}"`)) {
        // Rule 2: the value names the Service instead; its rewrite was reported.
        name = server;
      }
      const service = this.find('Service', name);
      if (!service || !this.selects(service, ref.server)) {
        const reported = this.warned(ref.at.path, ['file-host-reference', 'unreachable-service']);
        this.add(ref.client, VerifyCheck.REACH, subject, reported ? VerifyStatus.REPORTED : VerifyStatus.BROKEN,
          reported ? reported.message : `no Service "${name}" selects the pods of "${ref.server}"`);
        continue;
      }
      const ports: any[] = service.spec?.ports ?? [];
      const port = ref.port !== undefined ? ports.find((p) => p.port === ref.port) : ports.find((p) => (p.protocol ?? 'TCP') === 'TCP');
      if (!port) {
        this.add(ref.client, VerifyCheck.REACH, subject, VerifyStatus.BROKEN,
          `the Service "${name}" has no port ${ref.port ?? '(TCP)'}: it has ${ports.map((p) => p.port).join(', ') || 'none'}`);
        continue;
      }
      const admitted = this.admits(ref.client, ref.server, targetPort(port));
      this.add(ref.client, VerifyCheck.REACH, subject, admitted === true ? VerifyStatus.OK : VerifyStatus.BROKEN,
        admitted === true ? `Service "${name}" port ${port.port}` : `Service "${name}" port ${port.port}, but ${admitted}`);
    }
  }

  /**
   * Every pair on a shared network reaches the server's TCP ports; a pair on no shared network does not. One
   * expectation per client and direction (pairs are quadratic in services), naming the services and each pair that
   * fails.
   */
  private checkNetworks(): void {
    const networkKey = new Map(this.app.model.services.map((s) => [s.name, [...new Set(this.app.reachability.networksOf(s))].sort().join('\0')]));
    // By pair of network sets (few distinct ones), looked up without building a key string per pair of services.
    const shares = new Map<string, Map<string, boolean>>();
    const together = (a: string, b: string): boolean => {
      let mine = shares.get(a);
      if (mine === undefined) {
        mine = new Map();
        shares.set(a, mine);
      }
      let found = mine.get(b);
      if (found === undefined) {
        const theirs = new Set(b.split('\0'));
        found = a !== '' && b !== '' && a.split('\0').some((n) => theirs.has(n));
        mine.set(b, found);
      }
      return found;
    };
    const pod = (s: MigratedService): EvaluatedPod => ({ name: s.composeName, labels: this.pods.get(s.composeName)!.labels });
    const servers = this.app.services.filter((s) => s.service !== undefined && this.pods.has(s.composeName))
      .map((s) => ({ pod: pod(s), tcp: s.ports.filter((p) => p.protocol === 'TCP').map((p) => p.port), nets: networkKey.get(s.composeName) ?? '' }))
      .filter((s) => s.tcp.length > 0);
    for (const client of this.app.services.filter((s) => this.pods.has(s.composeName))) {
      const from = pod(client);
      const mine = networkKey.get(client.composeName) ?? '';
      const shared: string[] = [];
      const isolated: string[] = [];
      const problems: string[] = [];
      for (const server of servers) {
        const name = server.pod.name;
        if (name === client.composeName || client.sidecarOf === name) {
          continue;
        }
        const onShared = together(mine, server.nets);
        (onShared ? shared : isolated).push(name);
        const wrong = server.tcp.filter((port) => (this.policies.admits(from, server.pod, port) === true) !== onShared);
        if (wrong.length > 0) {
          problems.push(`${name}:${wrong.join(',')} ${onShared ? 'not admitted on a shared network' : 'admitted without a shared network'}`);
        }
      }
      const list = (names: string[]) => (names.length <= 6 ? names.join(', ') : `${names.slice(0, 6).join(', ')} and ${names.length - 6} more`);
      for (const [names, what, ok] of [[shared, 'shared networks', 'admitted on their TCP ports'], [isolated, 'no shared network', 'not admitted']] as const) {
        if (names.length === 0) {
          continue;
        }
        const mineWrong = problems.filter((p) => names.some((n) => p.startsWith(`${n}:`)));
        this.add(client.composeName, VerifyCheck.NETWORK, `${what}: ${list(names)}`, mineWrong.length === 0 ? VerifyStatus.OK : VerifyStatus.BROKEN,
          mineWrong.length === 0 ? ok : mineWrong.join('; '));
      }
    }
  }

  /** The Service name of a compose service (container or VM), or undefined when it has none. */
  private serverName(composeName: string): string | undefined {
    const container = this.migrated.get(composeName);
    if (container) {
      return container.service?.name ?? container.name;
    }
    return this.app.vmServices.find((s) => s.composeName === composeName)?.name;
  }

  private selects(service: any, composeName: string): boolean {
    if (!service) {
      return false;
    }
    const pod = this.pods.get(composeName);
    if (pod) {
      return matches(service.spec?.selector ?? {}, pod.labels);
    }
    const vm = this.app.vmServices.find((s) => s.composeName === composeName);
    return vm !== undefined && service.metadata.name === vm.name;
  }

  /** True when the NetworkPolicies admit client → server on a container port, or why not. */
  private admits(client: string, server: string, port: number): true | string {
    const from = this.pods.get(client);
    const to = this.pods.get(server);
    // A service in the VM is reached through the VM's own policy workload: not modelled here beyond its Service.
    return from && to ? this.policies.admits({ name: client, labels: from.labels }, { name: server, labels: to.labels }, port) : true;
  }

  // Environment -----------------------------------------------------------------------------------------------------

  private checkEnvironment(service: ComposeService): void {
    const pod = this.pods.get(service.name);
    for (const variable of service.environment) {
      const subject = variable.name;
      const entry = (pod?.container.env ?? []).find((e: any) => e.name === variable.name);
      if (!entry) {
        this.add(service.name, VerifyCheck.ENV, subject, VerifyStatus.BROKEN, 'not in the container\'s env');
        continue;
      }
      const resolved = this.envValue(entry);
      if (typeof resolved !== 'string') {
        this.add(service.name, VerifyCheck.ENV, subject, VerifyStatus.BROKEN, resolved.problem);
        continue;
      }
      const source = entry.valueFrom?.secretKeyRef ? 'from a Secret' : entry.valueFrom?.configMapKeyRef ? 'from a ConfigMap' : 'a plain value';
      if (resolved === variable.value) {
        this.add(service.name, VerifyCheck.ENV, subject, VerifyStatus.OK, `equal, ${source}`);
      } else if (resolved === this.app.hosts.rewrite(variable.value).value && this.warned(variable.at.path, ['host-rewrite'])) {
        this.add(service.name, VerifyCheck.ENV, subject, VerifyStatus.OK, `equal but for the reported host rewrite, ${source}`);
      } else {
        this.add(service.name, VerifyCheck.ENV, subject, VerifyStatus.BROKEN, `differs from compose's value (${source})`);
      }
    }
  }

  /** The value an env entry gives the container, or why it gives none (a missing object or key stops the pod). */
  private envValue(entry: any): string | { problem: string } {
    const ref = entry.valueFrom?.configMapKeyRef ?? entry.valueFrom?.secretKeyRef;
    if (!ref) {
      return entry.value ?? '';
    }
    const kind = entry.valueFrom.configMapKeyRef ? 'ConfigMap' : 'Secret';
    const object = this.find(kind, ref.name);
    if (!object) {
      return { problem: `the ${kind} "${ref.name}" is not in the manifests` };
    }
    const value = kind === 'ConfigMap' ? object.data?.[ref.key] : object.data?.[ref.key] !== undefined
      ? Buffer.from(String(object.data[ref.key]), 'base64').toString('utf8') : object.stringData?.[ref.key];
    return value === undefined ? { problem: `the ${kind} "${ref.name}" has no key "${ref.key}"` } : String(value);
  }

  // Files and volumes -----------------------------------------------------------------------------------------------

  private checkMounts(service: ComposeService): void {
    const expected: Array<{ target: string; content?: FileContent; what: string; path: string; volume?: boolean }> = [];
    for (const mount of service.volumes) {
      if (mount.type === 'bind' && mount.bind?.content) {
        expected.push({ target: mount.target, content: mount.bind.content, what: `bind ${mount.source}`, path: mount.at.path });
      } else if (mount.type === 'bind' && mount.bind?.files && mount.bind.files.length > 0) {
        for (const file of mount.bind.files) {
          expected.push({ target: `${mount.target.replace(/\/+$/, '')}/${file.path}`, content: file, what: `bind ${mount.source}/${file.path}`, path: mount.at.path });
        }
      } else {
        expected.push({ target: mount.target, what: `${mount.type} ${mount.source ?? '(anonymous)'}`, path: mount.at.path, volume: true });
      }
    }
    for (const [kind, refs, list] of [['secret', service.secrets, this.app.model.secrets], ['config', service.configs, this.app.model.configs]] as const) {
      for (const ref of refs) {
        const declared = (list as readonly any[]).find((item) => item.name === ref.source);
        const content: FileContent | undefined = declared && 'content' in declared.source ? declared.source.content : undefined;
        expected.push({ target: ref.target, content, what: `${kind} ${ref.source}`, path: content ? ref.at.path : declared?.at.path ?? ref.at.path });
      }
    }
    const pod = this.pods.get(service.name);
    for (const item of expected) {
      const check = item.volume ? VerifyCheck.VOLUME : VerifyCheck.FILE;
      const subject = `${item.target} (${item.what})`;
      const mount = (pod?.container.volumeMounts ?? []).find((m: any) => m.mountPath === item.target || m.mountPath === item.target.replace(/\/+$/, ''));
      const volume = mount ? (pod!.spec.volumes ?? []).find((v: any) => v.name === mount.name) : undefined;
      if (!mount || !volume) {
        const reported = this.warned(item.path, ['directory-bind', 'large-bind-directory', 'large-bind-file', 'host-path',
          'external-secret', 'external-config', 'special-bind-file']);
        const engineData = this.app.services.find((s) => s.composeName === service.name)?.kind === WorkloadKind.STATEFUL;
        if (engineData && item.volume) {
          this.add(service.name, check, subject, VerifyStatus.OK, 'the database\'s data claim');
        } else {
          this.add(service.name, check, subject, reported ? VerifyStatus.REPORTED : VerifyStatus.BROKEN, reported ? reported.message : 'not mounted');
        }
        continue;
      }
      if (item.volume || !item.content) {
        const external = item.content === undefined && !item.volume;
        const source = volume.persistentVolumeClaim ? `claim ${volume.persistentVolumeClaim.claimName}`
          : volume.emptyDir ? 'an emptyDir' : volume.configMap ? `ConfigMap ${volume.configMap.name}` : `Secret ${volume.secret?.secretName}`;
        const known = external ? this.warned(item.path, ['external-secret', 'external-config']) : undefined;
        this.add(service.name, check, subject, known ? VerifyStatus.REPORTED : VerifyStatus.OK, known ? known.message : `mounted from ${source}`);
        continue;
      }
      const bytes = this.fileBytes(volume, mount.subPath);
      const want = item.content.binary ? Buffer.from(item.content.text, 'base64') : Buffer.from(item.content.text, 'utf8');
      if (typeof bytes === 'string') {
        this.add(service.name, check, subject, VerifyStatus.BROKEN, bytes);
      } else {
        this.add(service.name, check, subject, bytes.equals(want) ? VerifyStatus.OK : VerifyStatus.BROKEN,
          bytes.equals(want) ? `the same ${want.length} bytes` : 'the mounted bytes differ from the file');
      }
    }
  }

  /** The bytes a ConfigMap or Secret volume puts at a subPath, or why there are none. */
  private fileBytes(volume: any, key: string | undefined): Buffer | string {
    const kind = volume.configMap ? 'ConfigMap' : volume.secret ? 'Secret' : undefined;
    const name = volume.configMap?.name ?? volume.secret?.secretName;
    if (!kind || key === undefined) {
      return 'not mounted from a ConfigMap or Secret key';
    }
    const object = this.find(kind, name);
    if (!object) {
      return `the ${kind} "${name}" is not in the manifests`;
    }
    if (object.data?.[key] !== undefined) {
      return kind === 'ConfigMap' ? Buffer.from(String(object.data[key]), 'utf8') : Buffer.from(String(object.data[key]), 'base64');
    }
    if (object.binaryData?.[key] !== undefined) {
      return Buffer.from(String(object.binaryData[key]), 'base64');
    }
    return `the ${kind} "${name}" has no key "${key}"`;
  }

  // depends_on -----------------------------------------------------------------------------------------------------

  private checkDependencies(service: ComposeService, migrated: MigratedService): void {
    const init: any[] = this.pods.get(service.name)?.spec.initContainers ?? [];
    for (const dependency of service.dependsOn) {
      const subject = `${dependency.service} (${dependency.condition})`;
      if (dependency.service === migrated.sidecarOf) {
        this.add(service.name, VerifyCheck.DEPENDS_ON, subject, VerifyStatus.OK, 'started with it: the same pod');
        continue;
      }
      // Several services in the VM are one wait for the VM.
      const wait = migrated.waits.find((w) => w.service === dependency.service)
        ?? (this.inVm.has(dependency.service) ? migrated.waits.find((w) => 'workload' in w && w.workload === 'VirtualMachine') : undefined);
      if (!wait) {
        const reported = this.warned(dependency.at.path, ['scheduled-dependency']);
        const missing = !this.app.model.services.some((s) => s.name === dependency.service);
        this.add(service.name, VerifyCheck.DEPENDS_ON, subject, reported || missing ? VerifyStatus.REPORTED : VerifyStatus.BROKEN,
          reported ? reported.message : missing ? 'not in the project (required: false)' : 'no wait');
        continue;
      }
      const name = waitContainerName(wait);
      this.add(service.name, VerifyCheck.DEPENDS_ON, subject, init.some((c) => c.name === name) ? VerifyStatus.OK : VerifyStatus.BROKEN,
        init.some((c) => c.name === name) ? `init container ${name} (${wait.kind})` : `no init container ${name}`);
    }
  }
}

function targetPort(port: any): number {
  return typeof port.targetPort === 'number' ? port.targetPort : port.port;
}
