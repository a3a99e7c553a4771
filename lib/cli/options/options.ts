import { SharedVolumes } from '../../app/storage/claim-sources';
import { ServiceTarget } from '../../app/target';
import { WorkloadController } from '../../stateful/workload-controller';
import { isDnsSubdomain, isIngressHost } from '../../util/dns';
import { GitOpsMode, GitOpsOptions, parseGitOpsOptions } from './gitops-options';
import { SecretsOptions, parseSecretsOptions } from './secrets-options';
import { Values, scan } from './option-scan';
import { COMMAND_NAMES, COMMAND_SPECS, CommandName } from './option-table';
import {
  QuotaKeyName,
  externalEndpoints,
  list,
  metadataPairs,
  onOff,
  optionalString,
  pairs,
  parseDuration,
  quotaChoice,
  registryOption,
} from './option-values';
import { UsageError } from './usage-error';

export { PROGRAM, helpText, usageLine } from './option-table';
export { QUOTA_KEYS, parseDuration } from './option-values';
export type { QuotaKeyName } from './option-values';
export { UsageError } from './usage-error';

/** How the manifests are split into files. */
export enum OutputLayout {
  /** One file per resource, in one folder per wave. */
  FILE_PER_RESOURCE = 'file-per-resource',
  /** All manifests in one file, in wave order. */
  SINGLE_FILE = 'single-file',
}

/** The options that decide what the compose project becomes; shared by convert, analyze and deploy. */
export interface ConversionOptions {
  /** Compose files as given with `-f` (empty: the loader's discovery). */
  readonly files: readonly string[];
  readonly profiles: readonly string[];
  readonly envFiles: readonly string[];
  readonly projectName?: string;
  /** `--image service=ref`, by service. */
  readonly images: Readonly<Record<string, string>>;
  /** `--registry HOST[/PATH]`: before the references of the images built from source. */
  readonly registry?: string;
  readonly allowOutsideProject: boolean;
  readonly namespace?: string;
  /** `--allow-system-namespace`: accept the cluster's namespaces and those of platform components (`PLATFORM_NAMESPACES`). */
  readonly allowSystemNamespace: boolean;
  /** `--controller` (`deployment` or `statefulset`, in any case): of the stateful dependencies. */
  readonly controller?: WorkloadController;
  /** `--labels`, in the order given. */
  readonly labels: Readonly<Record<string, string>>;
  /** `--annotations`, in the order given. */
  readonly annotations: Readonly<Record<string, string>>;
  /** `--ingress-host service=host`, by service. */
  readonly ingressHosts: Readonly<Record<string, string>>;
  /** `--external service=HOST[:PORT]`, by service: managed endpoints in place of services. */
  readonly externals: Readonly<Record<string, { readonly host: string; readonly port?: number }>>;
  /** `--external-cidr service=CIDR`, by service: the addresses of an external host name, for the egress rule. */
  readonly externalCidrs: Readonly<Record<string, string>>;
  /** `--target`: the values are ServiceTarget's strings. */
  readonly target: ServiceTarget;
  /** `--image-base-url`: where the golden images are published. */
  readonly imageBaseUrl?: string;
  /** `--vm-data-size`: the VM's data disk (a Kubernetes quantity, e.g. `50Gi`). */
  readonly vmDataSize?: string;
  /** `--vm-ssh-key-secret`: the Secret of SSH public keys for the VM's maintenance user. */
  readonly vmSshKeySecret?: string;
  /**
   * Annotate every object with its deploy wave for Argo CD (`--gitops argocd`).
   * @default true
   */
  readonly syncWaves?: boolean;
  /** `--network-policies on|off` (ComposeApp's `networkPolicies`). */
  readonly networkPolicies: boolean;
  /** `--ingress-controller-namespace` (ComposeApp's `ingressControllerNamespace`). */
  readonly ingressControllerNamespace?: string;
  /** `--ingress-controller-pod-labels`, in the order given (ComposeApp's `ingressControllerPodLabels`). */
  readonly ingressControllerPodLabels: Readonly<Record<string, string>>;
  /** `--ingress-class-name` (ComposeApp's `ingressClassName`). */
  readonly ingressClassName?: string;
  /** `--storage-class-name` (ComposeApp's `storageClassName`). */
  readonly storageClassName?: string;
  /** `--volume-size NAME=SIZE`: claim sizes in KiB by named volume or bound folder (ComposeApp's `volumes[NAME].size`). */
  readonly volumeSizes: Readonly<Record<string, number>>;
  /** `--shared-volumes node|rwx` (ComposeApp's `sharedVolumes`). */
  readonly sharedVolumes?: SharedVolumes;
  /** `--copy-up on|off` (ComposeApp's `copyUp`). */
  readonly copyUp?: boolean;
  /** `--backup on|off`; undefined: ComposeApp's default (the stateful dependencies whose data compose keeps). */
  readonly backup?: boolean;
  /** `--quota on|off|KEY=AMOUNT,…`: on (computed), off, or the amounts given by Kubernetes key (the rest computed). */
  readonly quota: boolean | Readonly<Partial<Record<QuotaKeyName, string>>>;
  /** `--default-limits` (ComposeApp's `defaultLimits`): limits for containers compose gives none. */
  readonly defaultLimits: boolean;
}

export interface ConvertOptions extends ConversionOptions {
  /** `-o`: a folder, or a file for one YAML file. */
  readonly out?: string;
  readonly layout: OutputLayout;
  readonly stdout: boolean;
  readonly force: boolean;
  /** `--gitops`, `--gitops-repo`, `--gitops-path`, `--gitops-branch`, `--overlay`. */
  readonly gitops: GitOpsOptions;
  /** `--secrets`, `--secret-store`, `--secret-store-kind`. */
  readonly secrets: SecretsOptions;
  /** `--chart`: a Helm chart in place of the wave folders. */
  readonly chart: boolean;
  /** `--quiet`: errors and the summary only. */
  readonly quiet: boolean;
}

export interface AnalyzeOptions extends ConversionOptions {
  readonly json: boolean;
}

export interface VerifyOptions extends ConversionOptions {
  readonly json: boolean;
}

export interface DeployOptions extends ConversionOptions {
  readonly out?: string;
  readonly force: boolean;
  readonly context?: string;
  readonly timeoutSeconds: number;
  readonly dryRun: boolean;
  /** `--secrets`, `--secret-store`, `--secret-store-kind`. */
  readonly secrets: SecretsOptions;
  /** `--quiet`: errors and the summary only. */
  readonly quiet: boolean;
}

export interface MoveDataOptions extends ConversionOptions {
  readonly context?: string;
  readonly timeoutSeconds: number;
  readonly dryRun: boolean;
  /** `--overwrite`: empty a claim that holds files before filling it. */
  readonly overwrite: boolean;
  /** `--logical`: dump and restore the known engines' claims instead of copying files. */
  readonly logical: boolean;
}

export type ParsedCommand =
  | { readonly command: 'help'; readonly topic?: string; readonly debug: boolean }
  | { readonly command: 'convert'; readonly options: ConvertOptions; readonly debug: boolean }
  | { readonly command: 'analyze'; readonly options: AnalyzeOptions; readonly debug: boolean }
  | { readonly command: 'verify'; readonly options: VerifyOptions; readonly debug: boolean }
  | { readonly command: 'deploy'; readonly options: DeployOptions; readonly debug: boolean }
  | { readonly command: 'move-data'; readonly options: MoveDataOptions; readonly debug: boolean };

export type { OptionSpec } from './option-spec';

/** Parses the command line (without the node and script arguments). Throws `UsageError`. */
export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  const debug = argv.includes('--debug');
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    return { command: 'help', topic: first === 'help' ? rest[0] : undefined, debug };
  }
  if (first === '--debug') {
    // `cdk8s-compose --debug convert …` is `cdk8s-compose convert … --debug`.
    return rest.length > 0 ? parseCommandLine([...rest, '--debug']) : { command: 'help', debug };
  }
  if (!(COMMAND_NAMES as readonly string[]).includes(first)) {
    throw new UsageError(
      first.startsWith('-')
        ? `expected a command before ${first}: ${COMMAND_NAMES.slice(0, -1).join(', ')} or ${COMMAND_NAMES.at(-1)}`
        : `unknown command "${first}". Allowed: ${COMMAND_NAMES.join(', ')}`,
    );
  }
  const command = first as CommandName;
  const { values, positionals } = scan(first, rest, COMMAND_SPECS[command]);
  if (values.help === true) {
    return { command: 'help', topic: first, debug };
  }
  // The second tool's shape: `convert FILE --output DIR`.
  if (positionals.length > 1 || (positionals.length === 1 && first !== 'convert')) {
    throw new UsageError(
      `unexpected argument "${positionals[first === 'convert' ? 1 : 0]}"` +
        (first === 'convert'
          ? ': give one compose file as an argument, or several with -f'
          : ': give compose files with -f'),
      first,
    );
  }
  const conversion = conversionOptions(first, values, positionals);
  if (first === 'convert') {
    return { command: 'convert', debug, options: convertOptions(conversion, values) };
  }
  if (first === 'analyze' || first === 'verify') {
    return { command: first, debug, options: { ...conversion, json: values.json === true } };
  }
  if (first === 'move-data') {
    return { command: 'move-data', debug, options: moveDataOptions(conversion, values) };
  }
  return { command: 'deploy', debug, options: deployOptions(conversion, values) };
}

/** `move-data`'s own options: the kubectl context, the waits, a dry run, and how claims are filled. */
function moveDataOptions(conversion: ConversionOptions, values: Values): MoveDataOptions {
  return {
    ...conversion,
    context: optionalString(values.context),
    timeoutSeconds: parseDuration(optionalString(values.timeout) ?? '300s', '--timeout', 'move-data'),
    dryRun: values['dry-run'] === true,
    overwrite: values.overwrite === true,
    logical: values.logical === true,
  };
}

/** `convert`'s own options: where and how the output is written. */
function convertOptions(conversion: ConversionOptions, values: Values): ConvertOptions {
  const out = optionalString(values.out);
  const singleFile = values['single-file'] === true || (out !== undefined && /\.ya?ml$/i.test(out));
  if (values.stdout === true && out !== undefined) {
    throw new UsageError('--stdout and -o exclude each other: --stdout writes nothing', 'convert');
  }
  const gitops = parseGitOpsOptions(values, singleFile || values.stdout === true, (message) => {
    throw new UsageError(message, 'convert');
  });
  const chart = values.chart === true;
  if (chart && (singleFile || values.stdout === true)) {
    throw new UsageError(
      '--chart writes a chart folder: leave out -o FILE.yaml, --single-file and --stdout',
      'convert',
    );
  }
  const gitopsFlags = ['gitops-repo', 'gitops-path', 'gitops-branch', 'overlay'].filter((f) => values[f] !== undefined);
  if (chart && gitopsFlags.length > 0) {
    throw new UsageError(
      `${gitopsFlags.map((f) => `--${f}`).join(', ')} ${gitopsFlags.length === 1 ? 'is' : 'are'} for the plain output: ` +
        'a chart has no wave folders for gitops/ and overlays to point at (Argo CD and Flux install a chart themselves)',
      'convert',
    );
  }
  const secrets = parseSecretsOptions(
    values,
    { stdout: values.stdout === true, oneFile: singleFile, chart },
    (message) => {
      throw new UsageError(message, 'convert');
    },
  );
  return {
    ...conversion,
    syncWaves: gitops.mode === GitOpsMode.ARGOCD,
    out,
    layout: singleFile ? OutputLayout.SINGLE_FILE : OutputLayout.FILE_PER_RESOURCE,
    stdout: values.stdout === true,
    force: values.force === true,
    gitops,
    secrets,
    chart,
    quiet: values.quiet === true,
  };
}

/** `deploy`'s own options: the kubectl context, the waits, and where the manifests are kept. */
function deployOptions(conversion: ConversionOptions, values: Values): DeployOptions {
  const out = optionalString(values.out);
  if (out !== undefined && /\.ya?ml$/i.test(out)) {
    throw new UsageError(`deploy -o takes a folder, not a file: "${out}"`, 'deploy');
  }
  return {
    ...conversion,
    out,
    force: values.force === true,
    context: optionalString(values.context),
    timeoutSeconds: parseDuration(optionalString(values.timeout) ?? '300s', '--timeout', 'deploy'),
    dryRun: values['dry-run'] === true,
    secrets: parseSecretsOptions(values, { stdout: false, oneFile: false }, (message) => {
      throw new UsageError(message, 'deploy');
    }),
    quiet: values.quiet === true,
  };
}

function conversionOptions(command: string, values: Values, positionals: readonly string[]): ConversionOptions {
  const files = [...positionals, ...list(values.file)];
  for (const file of files) {
    if (file === '' || file === '-') {
      throw new UsageError(`-f "${file}": give the path of a compose file (reading stdin is not supported)`, command);
    }
  }
  const controllerText = optionalString(values.controller);
  const controller = Object.values(WorkloadController).find((c) => c.toLowerCase() === controllerText?.toLowerCase());
  if (controllerText !== undefined && controller === undefined) {
    throw new UsageError(
      `--controller "${controllerText}" is not supported. Allowed: deployment, statefulset`,
      command,
    );
  }
  const targetText = optionalString(values.target) ?? ServiceTarget.CONTAINER;
  if (!(Object.values(ServiceTarget) as string[]).includes(targetText)) {
    throw new UsageError(`--target "${targetText}" is not allowed. Allowed: container, vm, auto`, command);
  }
  const namespace = optionalString(values.namespace);
  if (namespace !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(namespace)) {
    throw new UsageError(
      `--namespace "${namespace}" is not a namespace name. Allowed: a DNS-1123 label (lower case letters, digits and "-", 1-63 characters)`,
      command,
    );
  }
  const imageBaseUrl = optionalString(values['image-base-url']);
  if (imageBaseUrl !== undefined && !/^https?:\/\/[^\s/]+/.test(imageBaseUrl)) {
    throw new UsageError(`--image-base-url "${imageBaseUrl}" is not an http(s) URL`, command);
  }
  const ingressControllerNamespace = optionalString(values['ingress-controller-namespace']);
  if (
    ingressControllerNamespace !== undefined &&
    !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(ingressControllerNamespace)
  ) {
    throw new UsageError(
      `--ingress-controller-namespace "${ingressControllerNamespace}" is not a namespace name. Allowed: a DNS-1123 label (lower case letters, digits and "-", 1-63 characters)`,
      command,
    );
  }
  const vmDataSize = optionalString(values['vm-data-size']);
  if (vmDataSize !== undefined && !/^[1-9][0-9]*(Mi|Gi|Ti)$/.test(vmDataSize)) {
    throw new UsageError(
      `--vm-data-size "${vmDataSize}" is not a disk size. Allowed: a whole number of Mi, Gi or Ti, e.g. 50Gi`,
      command,
    );
  }
  for (const flag of ['ingress-class-name', 'storage-class-name', 'vm-ssh-key-secret']) {
    const name = optionalString(values[flag]);
    if (name !== undefined && (!isDnsSubdomain(name) || name.length > 253)) {
      throw new UsageError(
        `--${flag} "${name}" is not a ${flag === 'vm-ssh-key-secret' ? 'Secret' : 'class'} name. Allowed: a DNS subdomain (lower case letters, digits, "-" and ".")`,
        command,
      );
    }
  }
  return {
    files,
    profiles: list(values.profile),
    envFiles: list(values['env-file']),
    projectName: optionalString(values['project-name']),
    images: pairs(list(values.image), '--image', 'SERVICE=REF', command),
    registry: registryOption(optionalString(values.registry), command),
    allowOutsideProject: values['allow-outside-project'] === true,
    namespace,
    allowSystemNamespace: values['allow-system-namespace'] === true,
    controller,
    labels: metadataPairs(list(values.labels), '--labels', command),
    annotations: metadataPairs(list(values.annotations), '--annotations', command),
    ingressHosts: ingressHosts(list(values['ingress-host']), command),
    externals: externalEndpoints(list(values.external), command),
    externalCidrs: pairs(list(values['external-cidr']), '--external-cidr', 'SERVICE=CIDR', command),
    target: targetText as ServiceTarget,
    imageBaseUrl,
    vmDataSize,
    vmSshKeySecret: optionalString(values['vm-ssh-key-secret']),
    networkPolicies: onOff(values['network-policies'], '--network-policies', command) ?? true,
    ingressControllerNamespace,
    ingressControllerPodLabels: metadataPairs(
      list(values['ingress-controller-pod-labels']),
      '--ingress-controller-pod-labels',
      command,
    ),
    ingressClassName: optionalString(values['ingress-class-name']),
    storageClassName: optionalString(values['storage-class-name']),
    volumeSizes: volumeSizes(list(values['volume-size']), command),
    sharedVolumes: sharedVolumesChoice(optionalString(values['shared-volumes']), command),
    copyUp: onOff(values['copy-up'], '--copy-up', command),
    backup: onOff(values.backup, '--backup', command),
    quota: quotaChoice(optionalString(values.quota), command),
    defaultLimits: values['default-limits'] === true,
  };
}

const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  'k': 1e3,
  'M': 1e6,
  'G': 1e9,
  'T': 1e12,
  'Ki': 1024,
  'Mi': 1024 ** 2,
  'Gi': 1024 ** 3,
  'Ti': 1024 ** 4,
};

/** `--ingress-host SERVICE=HOST` items: each host one an Ingress rule takes. */
function ingressHosts(items: readonly string[], command: string): Record<string, string> {
  const hosts = pairs(items, '--ingress-host', 'SERVICE=HOST', command);
  for (const [service, host] of Object.entries(hosts)) {
    if (!isIngressHost(host)) {
      throw new UsageError(
        `--ingress-host "${service}=${host}": "${host}" is not a host an Ingress takes. Allowed: a lower case DNS ` +
          'name such as "shop.example.com", optionally starting with "*."',
        command,
      );
    }
  }
  return hosts;
}

/** `--volume-size NAME=SIZE` items: each size a storage quantity, in whole KiB. */
function volumeSizes(items: readonly string[], command: string): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const [name, text] of Object.entries(pairs(items, '--volume-size', 'NAME=SIZE', command))) {
    const match = /^([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(text);
    const kib = match ? (Number(match[1]) * SIZE_UNITS[match[2] ?? '']) / 1024 : NaN;
    if (!(kib > 0 && Number.isInteger(kib))) {
      throw new UsageError(
        `--volume-size "${name}=${text}": "${text}" is not a size. Allowed: a positive Kubernetes quantity such as "512Mi", "10Gi" or "1Ti"`,
        command,
      );
    }
    sizes[name] = kib;
  }
  return sizes;
}

/** `--shared-volumes node|rwx`. */ function sharedVolumesChoice(
  text: string | undefined,
  command: string,
): SharedVolumes | undefined {
  if (text === undefined) {
    return undefined;
  }
  const lower = text.toLowerCase();
  if (lower === 'node') {
    return SharedVolumes.SAME_NODE;
  }
  if (lower === 'rwx' || lower === 'readwritemany') {
    return SharedVolumes.READ_WRITE_MANY;
  }
  throw new UsageError(`--shared-volumes "${text}" is not allowed. Allowed: node, rwx`, command);
}
