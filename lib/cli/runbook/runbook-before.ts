import { inlineCode } from '../../util/shell-words';
import { ComposeWarning, formatWarning } from '../../compose/errors';
import { builtServices } from '../image-builds';
import type { Rendered } from '../rendered';
import { Markdown } from './runbook-text';
import { compare } from '../../util/sort';

/** One kind of unresolved item: the warning codes it gathers and the fix, said once for its lines. */
interface BeforeDeployGroup {
  readonly title: string;
  readonly codes: readonly string[];
  readonly fix: string;
}

/** What the conversion could not settle, by warning code, in the order an operator fixes them. */
const GROUPS: readonly BeforeDeployGroup[] = [
  {
    title: 'Empty secrets',
    codes: ['empty-secret'],
    fix:
      'set the variable (in `.env` or your environment) and convert again; a database image that finds an empty ' +
      "credential refuses to start, and the deploy's wait then times out",
  },
  {
    title: 'Variables that are not set',
    codes: ['unset-variable', 'missing-env-file'],
    fix: 'set them (in `.env`, `--env-file` or your environment) and convert again: compose would have used the same empty string',
  },
  {
    title: 'Files that did not travel',
    codes: [
      'directory-bind',
      'host-path',
      'large-bind-file',
      'special-bind-file',
      'vm-bind-outside',
      'vm-bind-unread',
      'vm-bind-directory',
      'vm-config-outside',
    ],
    fix:
      'the pod gets an empty folder (or nothing) there and may start on its defaults, looking healthy: put the files ' +
      'into a ConfigMap (`kubectl create configmap NAME --from-file=DIR/`) mounted at that path, or into the image',
  },
  {
    title: 'What the app uses but does not define',
    codes: [
      'external-secret',
      'external-config',
      'external-volume',
      'external-service-account',
      'vm-external-secret',
      'vm-external-config',
    ],
    fix:
      'create each in the namespace before its wave (the Deploy section gives the commands for Secrets and ConfigMaps); ' +
      'a pod that refers to a missing one does not start',
  },
  {
    title: 'Managed services in place of compose services',
    codes: ['external-service', 'external-egress', 'external-port'],
    fix:
      "put each endpoint's credentials into the keys named (set the variables they come from to the managed " +
      "service's values and convert again, or edit the env Secret), and give a host name's addresses with " +
      '`--external-cidr SERVICE=CIDR`: the namespace denies egress by default',
  },
  {
    title: 'Images a cluster cannot pull',
    codes: ['invalid-image'],
    fix: 'give the service a real image (`--image SERVICE=REF`, or set the variable the reference is built from) and convert again',
  },
  {
    title: 'Placeholder hosts',
    codes: ['placeholder-host'],
    fix: "convert again with `--ingress-host SERVICE=HOST` for each, and point the host's DNS at the ingress controller",
  },
  {
    title: 'Volumes shared by several pods',
    codes: ['shared-volume'],
    fix:
      'a ReadWriteOnce claim attaches to one node at a time, so the pods that share one are kept on one node by a ' +
      'required pod affinity: check that a node has room for them all, or convert with `--shared-volumes rwx` and a ' +
      'ReadWriteMany storage class',
  },
  {
    title: 'ReadWriteMany storage',
    codes: ['shared-volume-rwx'],
    fix:
      'the storage class named (`--storage-class-name`, or the cluster default) must offer ReadWriteMany (NFS, CephFS, ' +
      'a cloud file service): check with `kubectl get storageclass`; a claim it cannot bind stays Pending',
  },
  {
    title: 'Data to bring over',
    codes: ['move-data'],
    fix:
      'these claims start empty: after applying, and before the app starts work, run `cdk8s-compose move-data` from the ' +
      'compose host to stream the folders into their claims',
  },
];

/** The warnings about what changes between compose and the VM, listed under "Across the split". */
const SPLIT_CODES: readonly string[] = ['vm-docker-socket', 'vm-dependency-cycle', 'host-network-ports'];

/** Another issue's part of this section (e.g. images to build) hands its lines in here: a title, a fix, its lines. */
export interface BeforeDeployItems {
  readonly title: string;
  readonly fix: string;
  readonly lines: readonly string[];
}

/**
 * "Before you deploy": every unresolved item the conversion found, from its warnings' codes, one line each under the
 * fix of its kind; then what else must exist first (external Secrets, images to build, the VM's platform), and the
 * count of the other warnings by code. Returns the number of items listed.
 */
export function renderBeforeDeploy(md: Markdown, rendered: Rendered, extra: readonly BeforeDeployItems[] = []): number {
  const warnings = rendered.project.warnings;
  const app = rendered.project.composeApp;
  let count = 0;
  const listed = new Set<ComposeWarning>();
  const items: BeforeDeployItems[] = [];
  for (const group of GROUPS) {
    const found = warnings.filter((w) => group.codes.includes(w.code));
    found.forEach((w) => listed.add(w));
    if (found.length > 0) {
      items.push({ title: group.title, fix: group.fix, lines: found.map((w) => formatWarning(w)) });
    }
  }
  const builds = builtServices(rendered.project.model).sort((a, b) => compare(a.name, b.name));
  if (builds.length > 0) {
    // The `build-image` warning names the same images: listed here, one line per image.
    warnings.filter((w) => w.code === 'build-image').forEach((w) => listed.add(w));
    items.push({
      title: 'Images to build',
      fix: 'build and push each where the cluster pulls from, under the name the manifests use (the Deploy section gives the commands)',
      lines: builds.map(
        (s) =>
          `${s.name}: ${inlineCode(s.image)} from ${inlineCode(s.build!.context)}${s.build!.dockerfile ? ` (${s.build!.dockerfile})` : ''}`,
      ),
    });
  }
  items.push(...extra);
  if (app.vm) {
    // Named by key path, not by line: the runbook stays the same when the compose file is reordered.
    warnings.filter((w) => w.code === 'vm-target').forEach((w) => listed.add(w));
    items.push({
      title: 'Services that run in the VM',
      fix:
        'each moves for the reason given (what a pod cannot do, or a store it shares with one that moves); check that ' +
        'the reason holds, and keep a service a container with `x-cdk8s-compose.target: container` where it does not',
      lines: app.vmServices.map((s) => `${s.composeName}: ${s.reasons.join('; ')}`),
    });
    const split = warnings.filter((w) => SPLIT_CODES.includes(w.code));
    split.forEach((w) => listed.add(w));
    if (split.length > 0) {
      items.push({
        title: 'Across the split',
        fix: 'each line says what changes between compose and the VM: check that the app still does what you need (docs/vm.md, "Hybrid apps")',
        lines: split.map((w) => `${w.at.path}: ${w.message}`).sort(compare),
      });
    }
    items.push({
      title: "The VM's platform and image",
      fix: 'follow the section "Prepare the VM"',
      lines: [
        `KubeVirt and CDI installed in the cluster, and the golden image of \`${app.vm.vm.name}\` built and published at its URL`,
      ],
    });
  }
  if (items.length === 0) {
    md.para('The conversion left nothing unresolved.');
  }
  for (const item of items) {
    md.line(`**${item.title}** (${item.lines.length}). Fix: ${item.fix}.`, '');
    for (const line of item.lines) {
      md.line(`- ${line.replace(/\s*\n\s*/g, ' ')}`);
      count++;
    }
    md.line('');
  }
  const others = new Map<string, number>();
  warnings.filter((w) => !listed.has(w)).forEach((w) => others.set(w.code, (others.get(w.code) ?? 0) + 1));
  if (others.size > 0) {
    md.para(
      `The other warnings of the conversion (${[...others.entries()]
        .sort(([a], [b]) => compare(a, b))
        .map(([code, n]) => `${code} ×${n}`)
        .join(', ')})`,
      'change nothing above; `cdk8s-compose analyze` lists them by service.',
    );
  }
  return count;
}
