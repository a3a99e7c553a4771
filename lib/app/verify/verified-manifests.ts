import { ApiObject } from 'cdk8s';
import { ComposeWarning } from '../../compose/errors';
import { ComposeModel } from '../../compose/model';
import { VerifiedExternal } from './verify-external';
import { HostRewriter } from '../hosts/host-rewrite';
import { MigratedService } from '../service/migrated-service';
import { PolicyEvaluator } from '../policy/policy-evaluator';
import { Reachability } from '../policy/reachability';
import { VerifyCheck, VerifyExpectation, VerifyStatus } from './verify-report';

/** What `verifyManifests` needs from a `ComposeApp`. */
export interface VerifiedApp {
  readonly model: ComposeModel;
  readonly namespace: string;
  readonly reachability: Reachability;
  readonly hosts: HostRewriter;
  readonly services: readonly MigratedService[];
  readonly vmServices: readonly VerifiedVmService[];
  readonly warnings: readonly ComposeWarning[];
  /** The services replaced by managed endpoints. @default - none */
  readonly externalServices?: Readonly<Record<string, VerifiedExternal>>;
}

type Labels = Readonly<Record<string, string>>;

/** A service in the VM as `verify` reads it: its Service name, the VM's name, and the ports the VM's compose publishes. */
export interface VerifiedVmService {
  readonly composeName: string;
  readonly name: string;
  /** The VM that runs it, whose pods (`virt-launcher`) its Service selects. */
  readonly vm?: { readonly vm: { readonly name: string } };
  /** The ports its compose file in the VM publishes on the VM's address: container port and VM port. */
  readonly ports?: readonly { readonly target: number; readonly hostPort: number; readonly protocol: string }[];
}

/** The pod template of a migrated service as rendered: its labels, spec and the service's container. */
export interface VerifiedPod {
  readonly labels: Labels;
  readonly spec: any;
  readonly container: any;
}

/**
 * The manifests of one app indexed for the checks (by kind, by kind and name, the pod of each service, the warnings
 * under each compose path), and the expectations found so far.
 */
export class VerifiedManifests {
  public readonly byKind = new Map<string, any[]>();
  public readonly results: VerifyExpectation[] = [];
  public readonly pods = new Map<string, VerifiedPod>();
  /** The labels of the VM's pods, by the compose name of each service in the VM. */
  public readonly vmPods = new Map<string, Labels>();
  public readonly inVm: ReadonlySet<string>;
  public readonly migrated: ReadonlyMap<string, MigratedService>;
  public readonly policies: PolicyEvaluator;
  private readonly byName = new Map<string, any>();
  /**
   * The warnings at each compose path and below it, by that path: a warning at `services.a.environment.X` is listed
   * under `services`, `services.a`, `services.a.environment` and itself (in the order of the app's warnings), so that
   * looking a path up is one step instead of a scan of every warning.
   */
  private readonly warnedUnder = new Map<string, ComposeWarning[]>();

  constructor(
    public readonly app: VerifiedApp,
    manifests: readonly any[],
  ) {
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
    for (const service of app.vmServices) {
      const vm = service.vm ? this.find('VirtualMachine', service.vm.vm.name) : undefined;
      if (vm) {
        this.vmPods.set(service.composeName, vm.spec?.template?.metadata?.labels ?? {});
      }
    }
    this.policies = new PolicyEvaluator(this.byKind.get('NetworkPolicy') ?? []);
    this.migrated = new Map(app.services.map((s) => [s.composeName, s]));
    for (const service of app.services) {
      const workload = this.find(ApiObject.of(service.workload).kind, service.workload.name);
      const template =
        workload?.kind === 'CronJob' ? workload.spec.jobTemplate.spec.template : workload?.spec?.template;
      if (template) {
        const container =
          (template.spec.containers ?? []).find((c: any) => c.name === service.container.name) ??
          template.spec.containers[0];
        this.pods.set(service.composeName, { labels: template.metadata?.labels ?? {}, spec: template.spec, container });
      }
    }
  }

  /** The labels of the pods that run a service: its workload's pod template, or the VM's. */
  public labelsOf(composeName: string): Labels | undefined {
    return this.pods.get(composeName)?.labels ?? this.vmPods.get(composeName);
  }

  public add(service: string, check: VerifyCheck, subject: string, status: VerifyStatus, detail: string): void {
    this.results.push({ service, check, subject, status, detail });
  }

  public find(kind: string, name: string): any {
    return this.byName.get(`${kind}/${name}`);
  }

  /** A warning at this compose path (or below it) with one of the codes. */
  public warned(path: string, codes: readonly string[]): ComposeWarning | undefined {
    return this.warnedUnder.get(path)?.find((w) => codes.includes(w.code));
  }
}
