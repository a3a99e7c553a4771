import { ComposeService, FileContent } from '../../compose/model';
import { waitContainerName } from '../service/dependency-wait';
import { MigratedService, WorkloadKind } from '../service/migrated-service';
import { VerifiedManifests } from './verified-manifests';
import { VerifyCheck, VerifyStatus } from './verify-report';

// `verify` inside each pod: the environment equals compose's, every file and volume is mounted with the same bytes,
// every depends_on has its wait.

export function checkEnvironment(m: VerifiedManifests, service: ComposeService): void {
  const pod = m.pods.get(service.name);
  for (const variable of service.environment) {
    const subject = variable.name;
    const entry = (pod?.container.env ?? []).find((e: any) => e.name === variable.name);
    if (!entry) {
      m.add(service.name, VerifyCheck.ENV, subject, VerifyStatus.BROKEN, "not in the container's env");
      continue;
    }
    const resolved = envValue(m, entry);
    if (typeof resolved !== 'string') {
      m.add(service.name, VerifyCheck.ENV, subject, VerifyStatus.BROKEN, resolved.problem);
      continue;
    }
    const source = entry.valueFrom?.secretKeyRef
      ? 'from a Secret'
      : entry.valueFrom?.configMapKeyRef
        ? 'from a ConfigMap'
        : 'a plain value';
    if (resolved === variable.value) {
      m.add(service.name, VerifyCheck.ENV, subject, VerifyStatus.OK, `equal, ${source}`);
    } else if (resolved === m.app.hosts.rewrite(variable.value).value && m.warned(variable.at.path, ['host-rewrite'])) {
      m.add(
        service.name,
        VerifyCheck.ENV,
        subject,
        VerifyStatus.OK,
        `equal but for the reported host rewrite, ${source}`,
      );
    } else {
      m.add(service.name, VerifyCheck.ENV, subject, VerifyStatus.BROKEN, `differs from compose's value (${source})`);
    }
  }
}

/** The value an env entry gives the container, or why it gives none (a missing object or key stops the pod). */
function envValue(m: VerifiedManifests, entry: any): string | { problem: string } {
  const ref = entry.valueFrom?.configMapKeyRef ?? entry.valueFrom?.secretKeyRef;
  if (!ref) {
    return entry.value ?? '';
  }
  const kind = entry.valueFrom.configMapKeyRef ? 'ConfigMap' : 'Secret';
  const object = m.find(kind, ref.name);
  if (!object) {
    return { problem: `the ${kind} "${ref.name}" is not in the manifests` };
  }
  const value =
    kind === 'ConfigMap'
      ? object.data?.[ref.key]
      : object.data?.[ref.key] !== undefined
        ? Buffer.from(String(object.data[ref.key]), 'base64').toString('utf8')
        : object.stringData?.[ref.key];
  return value === undefined ? { problem: `the ${kind} "${ref.name}" has no key "${ref.key}"` } : String(value);
}

export function checkMounts(m: VerifiedManifests, service: ComposeService): void {
  const expected: Array<{ target: string; content?: FileContent; what: string; path: string; volume?: boolean }> = [];
  for (const mount of service.volumes) {
    if (mount.type === 'bind' && mount.bind?.content) {
      expected.push({
        target: mount.target,
        content: mount.bind.content,
        what: `bind ${mount.source}`,
        path: mount.at.path,
      });
    } else if (
      mount.type === 'bind' &&
      mount.bind?.files &&
      mount.bind.files.length > 0 &&
      // A folder on a claim (seeded from its files) is a volume here; the data class checks its files.
      !(m.pods.get(service.name)?.container.volumeMounts ?? []).some((v: any) => v.mountPath === mount.target)
    ) {
      for (const file of mount.bind.files) {
        expected.push({
          target: `${mount.target.replace(/\/+$/, '')}/${file.path}`,
          content: file,
          what: `bind ${mount.source}/${file.path}`,
          path: mount.at.path,
        });
      }
    } else {
      expected.push({
        target: mount.target,
        what: `${mount.type} ${mount.source ?? '(anonymous)'}`,
        path: mount.at.path,
        volume: true,
      });
    }
  }
  for (const [kind, refs, list] of [
    ['secret', service.secrets, m.app.model.secrets],
    ['config', service.configs, m.app.model.configs],
  ] as const) {
    for (const ref of refs) {
      const declared = (list as readonly any[]).find((item) => item.name === ref.source);
      const content: FileContent | undefined =
        declared && 'content' in declared.source ? declared.source.content : undefined;
      expected.push({
        target: ref.target,
        content,
        what: `${kind} ${ref.source}`,
        path: content ? ref.at.path : (declared?.at.path ?? ref.at.path),
      });
    }
  }
  const pod = m.pods.get(service.name);
  for (const item of expected) {
    const check = item.volume ? VerifyCheck.VOLUME : VerifyCheck.FILE;
    const subject = `${item.target} (${item.what})`;
    const mount = (pod?.container.volumeMounts ?? []).find(
      (m: any) => m.mountPath === item.target || m.mountPath === item.target.replace(/\/+$/, ''),
    );
    const volume = mount ? (pod!.spec.volumes ?? []).find((v: any) => v.name === mount.name) : undefined;
    if (!mount || !volume) {
      const reported = m.warned(item.path, [
        'directory-bind',
        'large-bind-directory',
        'large-bind-file',
        'host-path',
        'external-secret',
        'external-config',
        'special-bind-file',
      ]);
      const engineData = m.app.services.find((s) => s.composeName === service.name)?.kind === WorkloadKind.STATEFUL;
      if (engineData && item.volume) {
        m.add(service.name, check, subject, VerifyStatus.OK, "the database's data claim");
      } else {
        m.add(
          service.name,
          check,
          subject,
          reported ? VerifyStatus.REPORTED : VerifyStatus.BROKEN,
          reported ? reported.message : 'not mounted',
        );
      }
      continue;
    }
    if (item.volume || !item.content) {
      const external = item.content === undefined && !item.volume;
      const source = volume.persistentVolumeClaim
        ? `claim ${volume.persistentVolumeClaim.claimName}`
        : volume.emptyDir
          ? 'an emptyDir'
          : volume.configMap
            ? `ConfigMap ${volume.configMap.name}`
            : `Secret ${volume.secret?.secretName}`;
      const known = external ? m.warned(item.path, ['external-secret', 'external-config']) : undefined;
      m.add(
        service.name,
        check,
        subject,
        known ? VerifyStatus.REPORTED : VerifyStatus.OK,
        known ? known.message : `mounted from ${source}`,
      );
      continue;
    }
    const bytes = fileBytes(m, volume, mount.subPath);
    const want = item.content.binary
      ? Buffer.from(item.content.text, 'base64')
      : Buffer.from(item.content.text, 'utf8');
    if (typeof bytes === 'string') {
      m.add(service.name, check, subject, VerifyStatus.BROKEN, bytes);
    } else {
      m.add(
        service.name,
        check,
        subject,
        bytes.equals(want) ? VerifyStatus.OK : VerifyStatus.BROKEN,
        bytes.equals(want) ? `the same ${want.length} bytes` : 'the mounted bytes differ from the file',
      );
    }
  }
}

/** The bytes a ConfigMap or Secret volume puts at a subPath, or why there are none. */
function fileBytes(m: VerifiedManifests, volume: any, key: string | undefined): Buffer | string {
  const kind = volume.configMap ? 'ConfigMap' : volume.secret ? 'Secret' : undefined;
  const name = volume.configMap?.name ?? volume.secret?.secretName;
  if (!kind || key === undefined) {
    return 'not mounted from a ConfigMap or Secret key';
  }
  const object = m.find(kind, name);
  if (!object) {
    return `the ${kind} "${name}" is not in the manifests`;
  }
  if (object.data?.[key] !== undefined) {
    return kind === 'ConfigMap'
      ? Buffer.from(String(object.data[key]), 'utf8')
      : Buffer.from(String(object.data[key]), 'base64');
  }
  if (object.binaryData?.[key] !== undefined) {
    return Buffer.from(String(object.binaryData[key]), 'base64');
  }
  return `the ${kind} "${name}" has no key "${key}"`;
}

export function checkDependencies(m: VerifiedManifests, service: ComposeService, migrated: MigratedService): void {
  const init: any[] = m.pods.get(service.name)?.spec.initContainers ?? [];
  for (const dependency of service.dependsOn) {
    const subject = `${dependency.service} (${dependency.condition})`;
    if (dependency.service === migrated.sidecarOf) {
      m.add(service.name, VerifyCheck.DEPENDS_ON, subject, VerifyStatus.OK, 'started with it: the same pod');
      continue;
    }
    // Several services in the VM are one wait for the VM.
    const wait =
      migrated.waits.find((w) => w.service === dependency.service) ??
      (m.inVm.has(dependency.service)
        ? migrated.waits.find((w) => 'workload' in w && w.workload === 'VirtualMachine')
        : undefined);
    if (!wait) {
      const reported = m.warned(dependency.at.path, ['scheduled-dependency']);
      const missing = !m.app.model.services.some((s) => s.name === dependency.service);
      m.add(
        service.name,
        VerifyCheck.DEPENDS_ON,
        subject,
        reported || missing ? VerifyStatus.REPORTED : VerifyStatus.BROKEN,
        reported ? reported.message : missing ? 'not in the project (required: false)' : 'no wait',
      );
      continue;
    }
    const name = waitContainerName(wait);
    m.add(
      service.name,
      VerifyCheck.DEPENDS_ON,
      subject,
      init.some((c) => c.name === name) ? VerifyStatus.OK : VerifyStatus.BROKEN,
      init.some((c) => c.name === name) ? `init container ${name} (${wait.kind})` : `no init container ${name}`,
    );
  }
}
