import { IngressRule, PortAccess, PublishedPort } from '../../app/service/migrated-service';
import { DEFAULT_SENSITIVE_NAME_PATTERNS, hasEmbeddedPassword, isSensitiveName } from '../../compose/sensitive';
import { VmMigratedService } from '../../app/vm/vm-migrated-service';
import { DatabaseEngine } from '../../stateful/engine';
import { ComposeLocation, ComposeService } from '../../compose/model';
import { ComposeWarning, formatWarning } from '../../compose/errors';
import { AnalysisWarning, Exposure, SecretAnalysis, ServiceAnalysis, VolumeAnalysis } from './analysis';

// The parts of a service's assessment: its exposure, volumes and secrets read from its pod spec, a service in the VM
// as a whole, and the warnings under its key path.

/** A warning as the assessment reports it. */
export function analysisWarning(warning: ComposeWarning): AnalysisWarning {
  return { code: warning.code, message: formatWarning(warning) };
}

/** True when a finding's key path lies under the service. */
export function belongsTo(at: ComposeLocation, service: ComposeService): boolean {
  const base = service.at.path;
  return (
    at.file === service.at.file &&
    (at.path === base || at.path.startsWith(`${base}.`) || at.path.startsWith(`${base}[`))
  );
}

/**
 * The Secrets among the manifests by name (the first of a name, as a search would find it), looked up once per
 * reference rather than searched for among thousands of manifests.
 */
export function secretsByName(manifests: readonly any[]): ReadonlyMap<string, any> {
  const secrets = new Map<string, any>();
  for (const m of manifests) {
    if (m.kind === 'Secret' && !secrets.has(m.metadata?.name)) {
      secrets.set(m.metadata?.name, m);
    }
  }
  return secrets;
}

/** A service in the VM: its compose project there keeps the volumes; the operator or cloud-init supplies the secrets. */
export function vmServiceAnalysis(
  migrated: VmMigratedService,
  service: ComposeService,
  secrets: ReadonlyMap<string, any>,
  namespace: string,
  warnings: AnalysisWarning[],
): ServiceAnalysis {
  const vm = migrated.vm;
  const engine = DatabaseEngine.detect(service.image);
  const userData = vm.vm.userDataSecret ? secrets.get(vm.vm.userDataSecret?.name) : undefined;
  const mounts = [
    ...service.volumes.map((v) => ({ type: v.type, source: v.source ?? null, target: v.target })),
    ...service.secrets.map((x) => ({ type: 'secret', source: x.source, target: x.target })),
    ...service.configs.map((c) => ({ type: 'config', source: c.source, target: c.target })),
  ];
  return {
    service: service.name,
    name: migrated.name,
    target: 'vm',
    reasons: migrated.reasons,
    weakReasons: [],
    runsIn: 'vm',
    workload: `VirtualMachine ${vm.vm.name}`,
    replicas: 1,
    stateful: engine !== undefined,
    engine: engine?.name ?? null,
    exposure: exposureOf(migrated, namespace),
    volumes: mounts.map((m) => ({ ...m, becomes: `kept by the compose project in the VM ${vm.vm.name}` })),
    secrets: vm.bundle.operatorInputs
      .filter((i) => i.usedBy.some((u) => u.startsWith(`services.${service.name}.`)))
      .map((i) => ({
        kind: i.kind === 'env' ? 'env' : 'file',
        name: i.name,
        secret: userData?.metadata?.name ?? null,
        empty: i.kind === 'env' && service.environment.some((v) => v.name === i.name && v.value === ''),
      })),
    dependsOn: service.dependsOn.map((d) => ({ service: d.service, condition: d.condition, required: d.required })),
    build: null,
    warnings,
  };
}

/** What exposure needs of a migrated service, in a container or in the VM. */
interface Exposed {
  readonly service?: { readonly name: string };
  readonly publishedPorts: readonly PublishedPort[];
  readonly ingressRules: readonly IngressRule[];
}

/** How a service is reached: its Service, the ways in from outside, and the port-forwards for ports compose bound to the host. */
export function exposureOf(service: Exposed, namespace: string): Exposure {
  const rule = service.ingressRules[0];
  const inside = service.publishedPorts.filter((p) => p.access === PortAccess.INTERNAL);
  return {
    internal: service.service?.name ?? null,
    external: service.publishedPorts
      .filter((p) => p.access !== PortAccess.INTERNAL)
      .map((p) => ({
        via: p.access,
        port: p.mapping.published ?? p.mapping.target,
        targetPort: p.mapping.target,
        protocol: p.mapping.protocol,
        host: p.access === PortAccess.INGRESS && rule ? rule.host : null,
        path: p.access === PortAccess.INGRESS && rule ? rule.path : null,
      })),
    portForward: inside.map((p) => {
      const port = p.mapping.published ?? p.mapping.target;
      return {
        port,
        targetPort: p.mapping.target,
        protocol: p.mapping.protocol,
        hostIp: p.mapping.hostIp ?? null,
        command:
          service.service && p.mapping.protocol === 'tcp'
            ? `kubectl port-forward service/${service.service.name} ${port === p.mapping.target ? port : `${port}:${p.mapping.target}`} -n ${namespace}`
            : '',
      };
    }),
  };
}

/** Each compose mount (volumes, tmpfs, secrets, configs) and the pod volume now at its path. */
export function volumesOf(service: ComposeService, spec: any, container: any): VolumeAnalysis[] {
  const mounts: { type: string; source: string | null; target: string }[] = [
    ...service.volumes.map((v) => ({ type: v.type, source: v.source ?? null, target: v.target })),
    ...service.secrets.map((s) => ({ type: 'secret', source: s.source, target: s.target })),
    ...service.configs.map((c) => ({ type: 'config', source: c.source, target: c.target })),
  ];
  const volumes = new Map<string, any>((spec?.volumes ?? []).map((v: any) => [v.name, v]));
  return mounts.map((mount) => {
    const volumeMount = (container?.volumeMounts ?? []).find((m: any) => m.mountPath === mount.target);
    return {
      ...mount,
      becomes: volumeMount
        ? describeVolume(volumes.get(volumeMount.name), volumeMount.subPath)
        : 'not migrated (see the warnings)',
    };
  });
}

function describeVolume(volume: any, subPath: string | undefined): string {
  const key = subPath ? ` key ${subPath}` : '';
  if (volume?.persistentVolumeClaim) {
    return `PersistentVolumeClaim ${volume.persistentVolumeClaim.claimName}${subPath ? ` subPath ${subPath}` : ''}`;
  }
  if (volume?.configMap) {
    return `ConfigMap ${volume.configMap.name}${key}`;
  }
  if (volume?.secret) {
    return `Secret ${volume.secret.secretName}${key}`;
  }
  if (volume?.emptyDir) {
    return volume.emptyDir.medium === 'Memory' ? 'emptyDir in memory' : 'emptyDir';
  }
  return 'a pod volume';
}

/** The secrets of a service by name: variables kept in a Secret, compose secrets, bound files holding a secret. */
export function secretsOf(
  service: ComposeService,
  spec: any,
  container: any,
  secrets: ReadonlyMap<string, any>,
): SecretAnalysis[] {
  const result: SecretAnalysis[] = [];
  const sizeOf = (secret: string, key: string | undefined) => {
    const data = secrets.get(secret)?.data ?? {};
    return key === undefined ? undefined : data[key]?.length;
  };
  for (const env of container?.env ?? []) {
    const ref = env.valueFrom?.secretKeyRef;
    if (ref) {
      const value = service.environment.find((v) => v.name === env.name)?.value;
      const secretByItself =
        value === undefined || isSensitiveName(env.name, DEFAULT_SENSITIVE_NAME_PATTERNS) || hasEmbeddedPassword(value);
      result.push({
        kind: secretByItself ? 'env' : 'copy',
        name: env.name,
        secret: ref.name,
        empty: sizeOf(ref.name, ref.key) === 0,
      });
    }
  }
  const volumes = new Map<string, any>((spec?.volumes ?? []).map((v: any) => [v.name, v]));
  for (const mount of container?.volumeMounts ?? []) {
    const secretName = volumes.get(mount.name)?.secret?.secretName;
    if (!secretName) {
      continue;
    }
    const composeSecret = service.secrets.find((s) => s.target === mount.mountPath);
    const empty = sizeOf(secretName, mount.subPath) === 0;
    if (composeSecret) {
      result.push({ kind: 'secret', name: composeSecret.source, secret: secretName, empty });
    } else if (service.volumes.some((v) => v.target === mount.mountPath)) {
      result.push({ kind: 'file', name: mount.mountPath, secret: secretName, empty });
    }
  }
  return result;
}
