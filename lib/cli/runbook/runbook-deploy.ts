import { inlineCode, shellQuote } from '../../util/shell-words';
import { WaveKind } from '../../app/deploy-waves';
import { imageBuildMarkdown } from '../image-builds';
import type { Rendered, RenderedObject } from '../rendered';
import { DEFAULT_WAIT_SECONDS, Markdown, RunbookSections, podSpec, waitCommand } from './runbook-text';
import { compare } from '../../util/sort';
import { PUSH_SCRIPT, SECRETS_FOLDER } from '../gitops/secret-modes';
import { SecretsMode } from '../options/secrets-options';

/** The file of the Namespace object in a one-file-per-resource output. */
export function namespaceFile(rendered: Rendered): string | undefined {
  return rendered.waves.flatMap((w) => w.objects).find((o) => o.kind === 'Namespace')?.file;
}

/** The runbook's table of files: which wave is in which folder (or all in `file`), and what each holds. */
export function renderFiles(md: Markdown, rendered: Rendered, file: string | undefined): void {
  md.heading(2, 'Files');
  if (file) {
    md.para(`All manifests are in ${inlineCode(file)}, in wave order:`);
  } else {
    md.para('One file per object, in one folder per deploy wave; apply the folders in order:');
  }
  md.line('| Wave | Folder | What it holds |', '| --- | --- | --- |');
  for (const { wave, objects: members } of rendered.waves) {
    const policyCount = members.filter((o) => o.kind === 'NetworkPolicy').length;
    const what =
      wave.kind === WaveKind.NAMESPACE
        ? [
            'the Namespace',
            ...(members.some((o) => o.kind === 'ResourceQuota') ? ['its ResourceQuota'] : []),
            ...(policyCount > 0 ? [`${policyCount} NetworkPolicies`] : []),
          ]
            .join(', ')
            .replace(/, ([^,]*)$/, ' and $1')
        : `${wave.kind === WaveKind.STATEFUL ? 'stateful dependencies and what they need: ' : ''}${wave.services.join(', ')} ` +
          `(${members.length} objects)`;
    md.line(`| ${wave.folder.split('-')[0]} | ${file ? '-' : `\`${wave.folder}/\``} | ${what} |`);
  }
  md.line('');
}

/**
 * The runbook's Deploy section: the images to build, then the namespace, what the app uses but does not define, and
 * each wave applied and waited for, from `file` or from one folder per wave.
 */
export function renderDeploy(
  md: Markdown,
  rendered: Rendered,
  file: string | undefined,
  { section, anchor }: RunbookSections,
): void {
  const app = rendered.project.composeApp;
  const model = rendered.project.model;
  const ns = app.namespace;
  const vm = app.vm;
  const stepSh = (commands: readonly string[]) => md.sh(commands, '   ');
  md.para(
    '`cdk8s-compose deploy` runs the same steps with your kubectl (`--dry-run` prints them).',
    `First settle [what the conversion left open](${anchor('Before you deploy')})` +
      `${vm ? ` and [prepare the VM](${anchor('Prepare the VM')})` : ''}.`,
  );
  md.line(...imageBuildMarkdown(model));
  let step = 1;
  const nsFile = namespaceFile(rendered);
  if (rendered.secrets?.options.mode === SecretsMode.EXTERNAL) {
    const { store, storeKind } = rendered.secrets.options;
    md.line(
      `${step++}. The ExternalSecrets make the Secrets from the ${storeKind} \`${store}\` of the External Secrets Operator ` +
        `(\`--secrets external\`), one remote key per value. Put the values there first: ` +
        `\`${SECRETS_FOLDER}/${PUSH_SCRIPT}\` reads them from a \`--secrets separate\` output outside Git and hands each ` +
        'to `PUSH` (the remote key as `$1`, the value on stdin); its header shows an example. Once the waves are applied, ' +
        'each ExternalSecret shows `SecretSynced`:',
      '',
    );
    stepSh([`kubectl get externalsecrets -n ${ns}`]);
  }
  if (file) {
    md.line(
      `${step++}. Create the namespace \`${ns}\` and apply every wave; kubectl applies the documents in file order, ` +
        "and the dependents' init containers wait for their dependencies:",
      '',
    );
    stepSh([`kubectl apply -f ${shellQuote(file)}`]);
  } else {
    md.line(
      `${step++}. Create the namespace \`${ns}\` (as \`kubectl create namespace ${ns}\` does, with the label \`name: ${ns}\`):`,
      '',
    );
    stepSh([`kubectl apply -f ${nsFile}`]);
    if (rendered.secrets?.options.mode === SecretsMode.SEPARATE) {
      md.line(
        `${step++}. Create the Secrets. Their values are in \`${SECRETS_FOLDER}/\` only, which Git ignores ` +
          '(`--secrets separate`): keep that folder where the deploy runs, or create the same Secrets your own way:',
        '',
      );
      stepSh([`kubectl apply -f ${SECRETS_FOLDER}/`]);
    }
    md.line(`${step++}. Apply its quota and network policies:`, '');
    stepSh([`kubectl apply -f ${rendered.waves[0].wave.folder}/`]);
  }
  const external = externalReferences(
    rendered.waves.flatMap((w) => w.objects),
    rendered.secrets?.secrets,
  );
  if (external.length > 0) {
    md.line(
      `${step++}. Create what the app uses but does not define (external in the compose file); the values come from you:`,
      '',
    );
    stepSh(external.map((e) => e.command(ns)));
  }
  const what: Record<string, string> = {
    [WaveKind.STATEFUL]: 'the stateful dependencies',
    [WaveKind.APP]: 'the rest of the app',
    [WaveKind.VM]: `the VM \`${vm?.vm.name}\` and the Services of ${rendered.waves.find((w) => w.wave.kind === WaveKind.VM)?.wave.services.join(', ')}`,
    [WaveKind.AFTER_VM]: 'the services that wait for the VM',
  };
  for (const { wave } of rendered.waves.filter((w) => w.wave.kind !== WaveKind.NAMESPACE)) {
    if (!file) {
      md.line(`${step++}. Apply ${what[wave.kind]}:`, '');
      stepSh([`kubectl apply -f ${wave.folder}/`]);
    }
    if (wave.waits.length > 0) {
      md.line(
        `${step++}. Wait until ${wave.waits.map((w) => `${w.name} (${w.what})`).join(', ')} ${wave.waits.length === 1 ? 'is' : 'are'} ready:`,
        '',
      );
      stepSh(wave.waits.map((w) => waitCommand(w, ns, DEFAULT_WAIT_SECONDS).join(' ')));
      md.line(
        ...(wave.kind === WaveKind.VM
          ? [
              '   Expect `condition met` once CDI has imported the image and the VM has booted; `kubectl get dv,vmi` shows the progress.',
              `   A time-out means the VM did not start: see [${section('Operate the VM')}](${anchor('Operate the VM')}).`,
            ]
          : [
              '   Expect `condition met`. `no matching resources found` means the pods are not created yet: run it again.',
              '   A time-out means a dependency did not start: see [pod start-up](#pod-start-up) (an empty secret, a missing file:',
              `   [${section('Before you deploy')}](${anchor('Before you deploy')})).`,
            ]),
        '',
      );
    }
  }
}

/** Something the pods refer to that no manifest defines. */
interface ExternalReference {
  readonly kind: 'Secret' | 'ConfigMap' | 'PersistentVolumeClaim' | 'TLS';
  readonly name: string;
  command(namespace: string): string;
}

/**
 * Secrets, ConfigMaps and claims the manifests use but do not define, with the command that creates each. `alsoMade`
 * are objects made another way: the Secrets `--secrets separate|external` took out of the waves.
 */
export function externalReferences(
  objects: readonly RenderedObject[],
  alsoMade: readonly RenderedObject[] = [],
): ExternalReference[] {
  const defined = new Set([...objects, ...alsoMade].map((o) => `${o.kind}/${o.name}`));
  const wanted = new Map<
    string,
    { kind: ExternalReference['kind']; name: string; keys: Set<string>; files: Set<string> }
  >();
  const want = (kind: ExternalReference['kind'], name: string | undefined, key?: string, file = false) => {
    if (!name || defined.has(`${kind === 'TLS' ? 'Secret' : kind}/${name}`)) {
      return;
    }
    const id = `${kind}/${name}`;
    const entry = wanted.get(id) ?? { kind, name, keys: new Set<string>(), files: new Set<string>() };
    if (key) {
      (file ? entry.files : entry.keys).add(key);
    }
    wanted.set(id, entry);
  };
  for (const object of objects) {
    for (const tls of object.kind === 'Ingress' ? (object.manifest.spec?.tls ?? []) : []) {
      want('TLS', tls.secretName);
    }
    const spec = podSpec(object.manifest);
    if (!spec) {
      continue;
    }
    const volumes = new Map<string, any>((spec.volumes ?? []).map((v: any) => [v.name, v]));
    for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
      for (const env of container.env ?? []) {
        want('Secret', env.valueFrom?.secretKeyRef?.name, env.valueFrom?.secretKeyRef?.key);
        want('ConfigMap', env.valueFrom?.configMapKeyRef?.name, env.valueFrom?.configMapKeyRef?.key);
      }
      for (const mount of container.volumeMounts ?? []) {
        const volume = volumes.get(mount.name);
        want('Secret', volume?.secret?.secretName, mount.subPath, true);
        want('ConfigMap', volume?.configMap?.name, mount.subPath, true);
      }
    }
    for (const volume of volumes.values()) {
      want('Secret', volume.secret?.secretName);
      want('ConfigMap', volume.configMap?.name);
      want('PersistentVolumeClaim', volume.persistentVolumeClaim?.claimName);
    }
  }
  return [...wanted.values()]
    .sort((a, b) => compare(`${a.kind}/${a.name}`, `${b.kind}/${b.name}`))
    .map((entry) => ({
      kind: entry.kind,
      name: entry.name,
      command: (namespace: string) => {
        const placeholder = (key: string) => `<${key.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}>`;
        const literal = [...entry.keys]
          .sort()
          .map((k) => ` --from-literal=${k}=${placeholder(k)}`)
          .join('');
        const files = [...entry.files]
          .sort()
          .map((k) => ` --from-file=${k}=${placeholder(`${k}_FILE`)}`)
          .join('');
        switch (entry.kind) {
          case 'TLS':
            return `kubectl create secret tls ${entry.name} --cert=<CERT_FILE> --key=<KEY_FILE> -n ${namespace}`;
          case 'Secret':
            return `kubectl create secret generic ${entry.name}${literal}${files} -n ${namespace}`;
          case 'ConfigMap':
            return `kubectl create configmap ${entry.name}${literal}${files} -n ${namespace}`;
          default:
            return `kubectl get pvc ${entry.name} -n ${namespace}   # create this claim (bound to the volume with the data) before deploying`;
        }
      },
    }));
}
