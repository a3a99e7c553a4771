import { parseArgs, ParseArgsConfig } from 'util';
import { ServiceTarget } from '../app/settings';
import { checkRegistry } from '../compose/load';
import { parseDuration as parseComposeDuration } from '../compose/units';
import { WorkloadController } from '../stateful/stateful-dependency';
import { GITOPS_SPECS, GitOpsMode, GitOpsOptions, parseGitOpsOptions } from './gitops-options';
import type { OptionSpec } from './option-spec';
import { isDnsSubdomain } from '../util/dns';

/** The program name in messages and usage. */
export const PROGRAM = 'cdk8s-compose';

/** Bad usage: an unknown command or option, a missing or malformed value. The CLI exits with 2. */
export class UsageError extends Error {
  /** The command the usage belongs to, for the usage line. */
  public readonly command?: string;

  constructor(message: string, command?: string) {
    super(message);
    this.name = 'UsageError';
    this.command = command;
  }
}

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
  /** `--allow-system-namespace`: accept kube-system, kube-public, kube-node-lease and default. */
  readonly allowSystemNamespace: boolean;
  /** `--controller` (`deployment` or `statefulset`, in any case): of the stateful dependencies. */
  readonly controller?: WorkloadController;
  /** `--labels`, in the order given. */
  readonly labels: Readonly<Record<string, string>>;
  /** `--annotations`, in the order given. */
  readonly annotations: Readonly<Record<string, string>>;
  /** `--ingress-host service=host`, by service. */
  readonly ingressHosts: Readonly<Record<string, string>>;
  /** `--target`: the values are ServiceTarget's strings. */
  readonly target: ServiceTarget;
  /** `--image-base-url`: where the golden images are published. */
  readonly imageBaseUrl?: string;
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
  /** `--backup on|off`; undefined: ComposeApp's default (the stateful dependencies whose data compose keeps). */
  readonly backup?: boolean;
  /** `--quota on|off|KEY=AMOUNT,…`: on (computed), off, or the amounts given by Kubernetes key (the rest computed). */
  readonly quota: boolean | Readonly<Partial<Record<QuotaKeyName, string>>>;
}

/** The `spec.hard` keys `--quota` may give. */
export const QUOTA_KEYS = ['requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory', 'persistentvolumeclaims'] as const;
export type QuotaKeyName = typeof QUOTA_KEYS[number];

export interface ConvertOptions extends ConversionOptions {
  /** `-o`: a folder, or a file for one YAML file. */
  readonly out?: string;
  readonly layout: OutputLayout;
  readonly stdout: boolean;
  readonly force: boolean;
  /** `--gitops`, `--gitops-repo`, `--gitops-path`, `--gitops-branch`, `--overlay`. */
  readonly gitops: GitOpsOptions;
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
  /** `--quiet`: errors and the summary only. */
  readonly quiet: boolean;
}

export type ParsedCommand =
  | { readonly command: 'help'; readonly topic?: string; readonly debug: boolean }
  | { readonly command: 'convert'; readonly options: ConvertOptions; readonly debug: boolean }
  | { readonly command: 'analyze'; readonly options: AnalyzeOptions; readonly debug: boolean }
  | { readonly command: 'verify'; readonly options: VerifyOptions; readonly debug: boolean }
  | { readonly command: 'deploy'; readonly options: DeployOptions; readonly debug: boolean };

export type { OptionSpec } from './option-spec';

const CONVERSION_SPECS: readonly OptionSpec[] = [
  { name: 'file', short: 'f', kind: 'list', value: 'FILE', help: 'compose file; repeat to merge in compose\'s override order (default: compose.yaml, compose.yml, docker-compose.yaml, docker-compose.yml and its .override file)' },
  { name: 'profile', kind: 'list', value: 'NAME', help: 'activate a compose profile; repeatable, "*" activates all' },
  { name: 'env-file', kind: 'list', value: 'FILE', help: 'env file for interpolation instead of the project\'s .env; repeatable, later files win' },
  { name: 'project-name', short: 'p', kind: 'string', value: 'NAME', help: 'compose project name' },
  { name: 'image', kind: 'list', value: 'SERVICE=REF', help: 'image of a service instead of its own (or of the one build: makes); repeatable' },
  { name: 'registry', kind: 'string', value: 'HOST[/PATH]', help: 'registry of the images built from source: HOST[/PATH]/<project>-<service> (default: no registry, as docker compose build tags them)' },
  { name: 'allow-outside-project', kind: 'boolean', help: 'read env, secret, config and bind-mounted files outside the project folder' },
  { name: 'namespace', kind: 'string', value: 'NAME', help: 'namespace of every object (default: the compose project name)' },
  { name: 'allow-system-namespace', kind: 'boolean', help: 'accept kube-system, kube-public, kube-node-lease or default as the namespace (refused otherwise)' },
  { name: 'controller', kind: 'string', value: 'deployment|statefulset', help: 'controller of the stateful dependencies (databases, caches); other services are Deployments' },
  { name: 'labels', kind: 'list', value: 'K=V,K=V', help: 'labels for every object and pod template; repeatable' },
  { name: 'annotations', kind: 'list', value: 'K=V,K=V', help: 'annotations for every object and pod template; repeatable' },
  { name: 'ingress-host', kind: 'list', value: 'SERVICE=HOST', help: 'host of a service\'s Ingress rule (default: kompose.service.expose, else SERVICE.example.com); repeatable' },
  { name: 'target', kind: 'string', value: 'container|vm|auto', help: 'where services run (default container)' },
  { name: 'image-base-url', kind: 'string', value: 'URL', help: 'folder URL where the golden VM images are published (with --target vm|auto)' },
  { name: 'network-policies', kind: 'string', value: 'on|off', help: 'NetworkPolicies from the compose networks: default deny, DNS, per-network allows (default on)' },
  { name: 'ingress-controller-namespace', kind: 'string', value: 'NAME', help: 'namespace of the ingress controller, which the NetworkPolicies let in to the Ingress ports (default ingress-nginx)' },
  { name: 'ingress-controller-pod-labels', kind: 'list', value: 'K=V,K=V', help: 'labels of the ingress controller\'s pods, to let in only them (default: every pod of its namespace); repeatable' },
  { name: 'ingress-class-name', kind: 'string', value: 'NAME', help: 'ingressClassName of the Ingresses (default nginx; a kompose.service.expose.ingress-class-name label wins)' },
  { name: 'storage-class-name', kind: 'string', value: 'NAME', help: 'storageClassName of the claims (default: the cluster\'s default class; kompose.volume.storage-class-name wins)' },
  { name: 'backup', kind: 'string', value: 'on|off', help: 'backup CronJobs of the stateful dependencies: on for all, off for none (default: those whose data compose keeps in a volume)' },
  { name: 'quota', kind: 'string', value: 'on|off|KEY=AMOUNT,...', help: 'the ResourceQuota: on (computed from the app, the default), off, or amounts such as limits.memory=16Gi,requests.cpu=4 (the rest computed)' },
];

const COMMON_SPECS: readonly OptionSpec[] = [
  { name: 'debug', kind: 'boolean', help: 'show stack traces' },
  { name: 'help', short: 'h', kind: 'boolean', help: 'show this help' },
];

const COMMAND_SPECS: Readonly<Record<'convert' | 'analyze' | 'verify' | 'deploy', readonly OptionSpec[]>> = {
  convert: [
    ...CONVERSION_SPECS,
    { name: 'out', short: 'o', aliases: ['output'], kind: 'string', value: 'DIR|FILE', help: 'output folder (default: the current folder), or a .yaml/.yml file for one file' },
    { name: 'single-file', kind: 'boolean', help: 'write every manifest into one file (<namespace>.yaml) instead of one file per resource' },
    { name: 'stdout', kind: 'boolean', help: 'print the manifests to stdout and write nothing' },
    { name: 'force', kind: 'boolean', help: 'overwrite files that cdk8s-compose did not generate' },
    ...GITOPS_SPECS,
    { name: 'quiet', short: 'q', kind: 'boolean', help: 'print only errors and the summary (the warning count and what was written)' },
    ...COMMON_SPECS,
  ],
  analyze: [
    ...CONVERSION_SPECS,
    { name: 'json', kind: 'boolean', help: 'print the assessment as JSON' },
    ...COMMON_SPECS,
  ],
  verify: [
    ...CONVERSION_SPECS,
    { name: 'json', kind: 'boolean', help: 'print every expectation as JSON' },
    ...COMMON_SPECS,
  ],
  deploy: [
    ...CONVERSION_SPECS,
    { name: 'context', kind: 'string', value: 'NAME', help: 'kubectl context (default: the current context)' },
    { name: 'timeout', kind: 'string', value: 'DURATION', help: 'how long each wait may take, e.g. 300s, 5m (default 300s)' },
    { name: 'dry-run', kind: 'boolean', help: 'print the kubectl commands instead of running them' },
    { name: 'out', short: 'o', aliases: ['output'], kind: 'string', value: 'DIR', help: 'also keep the manifests and the runbook in this folder (default: a temporary folder)' },
    { name: 'force', kind: 'boolean', help: 'with -o: overwrite files that cdk8s-compose did not generate' },
    { name: 'quiet', short: 'q', kind: 'boolean', help: 'print only errors and the summary (no warning lines, kubectl commands or their output)' },
    ...COMMON_SPECS,
  ],
};

/** kompose options that have no counterpart here, with what to do instead. */
const KOMPOSE_ONLY: Readonly<Record<string, string>> = {
  'json': 'kompose\'s --json is not supported: the manifests are YAML',
  'j': 'kompose\'s -j (JSON output) is not supported: the manifests are YAML',
  'chart': 'kompose\'s --chart is not supported: cdk8s-compose writes plain manifests with a kustomization; "kubectl apply -k OUT" applies the whole app',
  'c': 'kompose\'s -c (Helm chart) is not supported: cdk8s-compose writes plain manifests with a kustomization; "kubectl apply -k OUT" applies the whole app',
  'provider': 'kompose\'s --provider is not supported: the output is for Kubernetes',
  'replicas': 'kompose\'s --replicas is not supported: set deploy.replicas in the compose file',
  'volumes': 'kompose\'s --volumes is not supported: named volumes become PersistentVolumeClaims',
  'build': 'kompose\'s --build is not supported: build and push the images with the commands RUNBOOK.md and analyze give (--registry HOST[/PATH] names where)',
  'push-image': 'kompose\'s --push-image is not supported: build and push the images with the commands RUNBOOK.md and analyze give (--registry HOST[/PATH] names where)',
  'pvc-request-size': 'kompose\'s --pvc-request-size is not supported: use the kompose.volume.size label',
  'generate-network-policies': 'kompose\'s --generate-network-policies is not needed: NetworkPolicies are generated unless --network-policies off',
  'with-kompose-annotation': 'kompose\'s --with-kompose-annotation is not supported',
  'indent': 'kompose\'s --indent is not supported',
};

const USAGE: Readonly<Record<string, string>> = {
  convert: `${PROGRAM} convert [-f FILE]... [-o DIR|FILE] [--namespace NAME] [--controller deployment|statefulset] [--labels K=V,...] [--annotations K=V,...] [options]\n`
    + `       ${PROGRAM} convert FILE --output DIR [options]`,
  analyze: `${PROGRAM} analyze [-f FILE]... [--json] [options]`,
  verify: `${PROGRAM} verify [-f FILE]... [--json] [options]`,
  deploy: `${PROGRAM} deploy [-f FILE]... [--context NAME] [--timeout 300s] [--dry-run] [options]`,
};

/** The one-line usage of a command, or of the program. */
export function usageLine(command?: string): string {
  return command && USAGE[command] ? `Usage: ${USAGE[command]}` : `Usage: ${PROGRAM} convert|analyze|verify|deploy [options]   (${PROGRAM} --help)`;
}

/** The help text of a command, or of the program. */
export function helpText(command?: string): string {
  if (command === 'convert' || command === 'analyze' || command === 'verify' || command === 'deploy') {
    const rows = COMMAND_SPECS[command].map((spec) => {
      const names = [spec.short ? `-${spec.short}, ` : '    ', `--${spec.name}`, ...(spec.aliases ?? []).map((a) => `, --${a}`)].join('');
      return [`${names}${spec.value ? ` ${spec.value}` : ''}`, spec.help];
    });
    const width = Math.max(...rows.map(([left]) => left.length)) + 2;
    return [
      `Usage: ${USAGE[command]}`,
      '',
      COMMAND_SUMMARY[command],
      '',
      'Options:',
      ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`),
      '',
      'Exit codes: 0 success, 1 bad input (verify: an expectation is broken), 2 bad usage, 3 a kubectl command failed or a wait timed out (deploy).',
    ].join('\n') + '\n';
  }
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'Commands:',
    `  convert   ${COMMAND_SUMMARY.convert}`,
    `  analyze   ${COMMAND_SUMMARY.analyze}`,
    `  verify    ${COMMAND_SUMMARY.verify}`,
    `  deploy    ${COMMAND_SUMMARY.deploy}`,
    '',
    `Run "${PROGRAM} <command> --help" for the options of a command.`,
  ].join('\n') + '\n';
}

const COMMAND_SUMMARY: Readonly<Record<string, string>> = {
  convert: 'Convert a compose project into Kubernetes manifests, one folder per deploy wave, and RUNBOOK.md.',
  analyze: 'Print a migration assessment of every service: target, state, exposure, volumes, secrets, dependencies, warnings.',
  verify: 'Check that the converted app behaves like the compose app: names and ports reached, networks, environment, files, waits.',
  deploy: 'Convert, then apply the waves with kubectl, waiting for the stateful dependencies between them.',
};

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
  if (first !== 'convert' && first !== 'analyze' && first !== 'verify' && first !== 'deploy') {
    throw new UsageError(first.startsWith('-')
      ? `expected a command before ${first}: convert, analyze, verify or deploy`
      : `unknown command "${first}". Allowed: convert, analyze, verify, deploy`);
  }
  const { values, positionals } = scan(first, rest, COMMAND_SPECS[first]);
  if (values.help === true) {
    return { command: 'help', topic: first, debug };
  }
  // The second tool's shape: `convert FILE --output DIR`.
  if (positionals.length > 1 || (positionals.length === 1 && first !== 'convert')) {
    throw new UsageError(`unexpected argument "${positionals[first === 'convert' ? 1 : 0]}"`
      + (first === 'convert' ? ': give one compose file as an argument, or several with -f' : ': give compose files with -f'), first);
  }
  const conversion = conversionOptions(first, values, positionals);
  if (first === 'convert') {
    const out = optionalString(values.out);
    const singleFile = values['single-file'] === true || (out !== undefined && /\.ya?ml$/i.test(out));
    if (values.stdout === true && out !== undefined) {
      throw new UsageError('--stdout and -o exclude each other: --stdout writes nothing', first);
    }
    const gitops = parseGitOpsOptions(values, singleFile || values.stdout === true, (message) => {
      throw new UsageError(message, first);
    });
    return {
      command: 'convert',
      debug,
      options: {
        ...conversion,
        syncWaves: gitops.mode === GitOpsMode.ARGOCD,
        out,
        layout: singleFile ? OutputLayout.SINGLE_FILE : OutputLayout.FILE_PER_RESOURCE,
        stdout: values.stdout === true,
        force: values.force === true,
        gitops,
        quiet: values.quiet === true,
      },
    };
  }
  if (first === 'analyze' || first === 'verify') {
    return { command: first, debug, options: { ...conversion, json: values.json === true } };
  }
  const out = optionalString(values.out);
  if (out !== undefined && /\.ya?ml$/i.test(out)) {
    throw new UsageError(`deploy -o takes a folder, not a file: "${out}"`, first);
  }
  return {
    command: 'deploy',
    debug,
    options: {
      ...conversion,
      out,
      force: values.force === true,
      context: optionalString(values.context),
      timeoutSeconds: parseDuration(optionalString(values.timeout) ?? '300s', '--timeout', first),
      dryRun: values['dry-run'] === true,
      quiet: values.quiet === true,
    },
  };
}

type Values = Record<string, string | boolean | string[] | undefined>;

/**
 * Splits arguments into option values and positionals by the specs, with `util.parseArgs` doing the tokenizing
 * (`--name=value`, `--` ending the options). Its strict mode would answer with Node's own messages, so the tokens are
 * checked here instead: unknown options (with kompose's refusals and a suggestion), one-dash long options and
 * grouped or glued short ones, missing values, values on switches, and single-valued options given twice.
 */
function scan(command: string, args: readonly string[], specs: readonly OptionSpec[]): { values: Values; positionals: string[] } {
  const config: NonNullable<ParseArgsConfig['options']> = {};
  const specOf = new Map<string, OptionSpec>();
  for (const spec of specs) {
    for (const name of [spec.name, ...(spec.aliases ?? [])]) {
      const short = name === spec.name && spec.short ? { short: spec.short } : {};
      config[name] = { type: spec.kind === 'boolean' ? 'boolean' : 'string', multiple: spec.kind === 'list', ...short };
      specOf.set(name, spec);
    }
  }
  const { tokens } = parseArgs({ args: [...args], options: config, strict: false, allowPositionals: true, tokens: true });
  const values: Values = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') {
      continue;
    }
    const raw = args[token.index];
    const long = raw.startsWith('--');
    const flag = long ? token.rawName : raw;
    const spec = specOf.get(token.name);
    if (!spec || (!long && raw !== `-${spec.short}`)) {
      throw unknownOption(command, flag, [...specOf.keys()].map((name) => `--${name}`));
    }
    if (spec.kind === 'boolean') {
      if (token.value !== undefined) {
        throw new UsageError(`${flag} takes no value`, command);
      }
      values[spec.name] = true;
      continue;
    }
    const value = token.value;
    if (value === undefined || (!token.inlineValue && value.startsWith('-') && value !== '-')) {
      throw new UsageError(`${flag} needs a value${spec.value ? ` (${spec.value})` : ''}`, command);
    }
    if (spec.kind === 'list') {
      values[spec.name] = [...((values[spec.name] as string[] | undefined) ?? []), value];
    } else {
      if (values[spec.name] !== undefined) {
        throw new UsageError(`${flag} is given twice`, command);
      }
      values[spec.name] = value;
    }
  }
  return { values, positionals };
}

/** The usage error of an option that the command does not have: kompose's with what to do instead, else a suggestion. */
function unknownOption(command: string, flag: string, known: readonly string[]): UsageError {
  const kompose = KOMPOSE_ONLY[flag.replace(/^-+/, '')];
  if (kompose) {
    return new UsageError(kompose, command);
  }
  if (!flag.startsWith('--') && flag.length > 2) {
    return new UsageError(`unknown option ${flag}: write long options with two dashes, short ones as one letter`, command);
  }
  return new UsageError(`unknown option ${flag}${suggest(flag, known)}`, command);
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
    throw new UsageError(`--controller "${controllerText}" is not supported. Allowed: deployment, statefulset`, command);
  }
  const targetText = optionalString(values.target) ?? ServiceTarget.CONTAINER;
  if (!(Object.values(ServiceTarget) as string[]).includes(targetText)) {
    throw new UsageError(`--target "${targetText}" is not allowed. Allowed: container, vm, auto`, command);
  }
  const namespace = optionalString(values.namespace);
  if (namespace !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(namespace)) {
    throw new UsageError(`--namespace "${namespace}" is not a namespace name. Allowed: a DNS-1123 label (lower case letters, digits and "-", 1-63 characters)`, command);
  }
  const imageBaseUrl = optionalString(values['image-base-url']);
  if (imageBaseUrl !== undefined && !/^https?:\/\/[^\s/]+/.test(imageBaseUrl)) {
    throw new UsageError(`--image-base-url "${imageBaseUrl}" is not an http(s) URL`, command);
  }
  const ingressControllerNamespace = optionalString(values['ingress-controller-namespace']);
  if (ingressControllerNamespace !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(ingressControllerNamespace)) {
    throw new UsageError(`--ingress-controller-namespace "${ingressControllerNamespace}" is not a namespace name. Allowed: a DNS-1123 label (lower case letters, digits and "-", 1-63 characters)`, command);
  }
  for (const flag of ['ingress-class-name', 'storage-class-name']) {
    const name = optionalString(values[flag]);
    if (name !== undefined && (!isDnsSubdomain(name) || name.length > 253)) {
      throw new UsageError(`--${flag} "${name}" is not a class name. Allowed: a DNS subdomain (lower case letters, digits, "-" and ".")`, command);
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
    ingressHosts: pairs(list(values['ingress-host']), '--ingress-host', 'SERVICE=HOST', command),
    target: targetText as ServiceTarget,
    imageBaseUrl,
    networkPolicies: onOff(values['network-policies'], '--network-policies', command) ?? true,
    ingressControllerNamespace,
    ingressControllerPodLabels: metadataPairs(list(values['ingress-controller-pod-labels']), '--ingress-controller-pod-labels', command),
    ingressClassName: optionalString(values['ingress-class-name']),
    storageClassName: optionalString(values['storage-class-name']),
    backup: onOff(values.backup, '--backup', command),
    quota: quotaChoice(optionalString(values.quota), command),
  };
}

/** `on`/`off` (also `true`/`false`) of a switch, or undefined when it is not given. */
function onOff(value: Values[string], flag: string, command: string): boolean | undefined {
  const text = optionalString(value);
  if (text === undefined) {
    return undefined;
  }
  const lower = text.toLowerCase();
  if (lower === 'on' || lower === 'true') {
    return true;
  }
  if (lower === 'off' || lower === 'false') {
    return false;
  }
  throw new UsageError(`${flag} "${text}" is not allowed. Allowed: on, off`, command);
}

/** `--quota`: on, off, or `KEY=AMOUNT,…` by the ResourceQuota's `spec.hard` keys. */
function quotaChoice(text: string | undefined, command: string): ConversionOptions['quota'] {
  if (text === undefined || !text.includes('=')) {
    if (text !== undefined && !/^(on|off|true|false)$/i.test(text)) {
      throw new UsageError(`--quota "${text}" is not allowed. Allowed: on, off, or KEY=AMOUNT,… with the keys ${QUOTA_KEYS.join(', ')}`, command);
    }
    return onOff(text, '--quota', command) ?? true;
  }
  const amounts: Partial<Record<QuotaKeyName, string>> = {};
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim() as QuotaKeyName;
    const amount = part.slice(eq + 1).trim();
    if (eq <= 0 || !QUOTA_KEYS.includes(key)) {
      throw new UsageError(`--quota "${part}": unknown key. Allowed: ${QUOTA_KEYS.join(', ')} (as KEY=AMOUNT, comma-separated), or on, off`, command);
    }
    const shape = key === 'persistentvolumeclaims' ? /^[1-9]\d*$/ : key.endsWith('cpu') ? /^\d+(\.\d+)?m?$/ : /^\d+(\.\d+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
    if (!shape.test(amount) || /^0+(\.0+)?[a-zA-Z]*$/.test(amount)) {
      throw new UsageError(`--quota ${key}="${amount}" is not an amount. Allowed: ${key === 'persistentvolumeclaims' ? 'a whole number above 0'
        : key.endsWith('cpu') ? 'cores or millicores above 0, e.g. 4, 1.5 or 500m' : 'a memory size above 0, e.g. 16Gi or 512Mi'}`, command);
    }
    if (amounts[key] !== undefined && amounts[key] !== amount) {
      throw new UsageError(`--quota gives ${key} twice`, command);
    }
    amounts[key] = amount;
  }
  return amounts;
}

/** `--registry`, checked as the loader checks it, so that a bad value is a usage error. */
function registryOption(value: string | undefined, command: string): string | undefined {
  if (value === undefined) {
    return undefined;
  }
  try {
    return checkRegistry(value);
  } catch {
    throw new UsageError(`--registry "${value}" is not HOST[/PATH]. Allowed: a registry host with an optional port and path, `
      + 'such as registry.example.com/shop or localhost:5000', command);
  }
}

function list(value: Values[string]): string[] {
  return Array.isArray(value) ? value : [];
}

function optionalString(value: Values[string]): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `a=b` items of repeatable options, one pair each. */
function pairs(items: readonly string[], flag: string, shape: string, command: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0 || eq === item.length - 1) {
      throw new UsageError(`${flag} "${item}" is not ${shape}`, command);
    }
    const key = item.slice(0, eq);
    if (key in result && result[key] !== item.slice(eq + 1)) {
      throw new UsageError(`${flag} gives ${key} twice`, command);
    }
    result[key] = item.slice(eq + 1);
  }
  return result;
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;
/** Labels that selectors and network policies rely on; overriding them would cut pods off their Services. */
const RESERVED_LABELS = ['app', 'name'];
const RESERVED_PREFIXES = ['network.cdk8s-compose.io/', 'kubevirt.io/'];

/** `k=v,k=v` items of `--labels` / `--annotations`, checked against Kubernetes' key and value rules. */
function metadataPairs(items: readonly string[], flag: '--labels' | '--annotations' | '--ingress-controller-pod-labels', command: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of items) {
    for (const part of item.split(',')) {
      const eq = part.indexOf('=');
      if (eq <= 0) {
        throw new UsageError(`${flag} "${part}" is not K=V (write ${flag} k=v,k=v)`, command);
      }
      const key = part.slice(0, eq).trim();
      const value = part.slice(eq + 1).trim();
      const slash = key.lastIndexOf('/');
      const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
      const name = slash >= 0 ? key.slice(slash + 1) : key;
      if (!QUALIFIED_NAME.test(name) || (prefix !== undefined && (!isDnsSubdomain(prefix) || prefix.length > 253))) {
        throw new UsageError(`${flag}: "${key}" is not a Kubernetes key. Allowed: an optional DNS prefix and "/", then 1-63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`, command);
      }
      if (flag !== '--annotations' && !LABEL_VALUE.test(value)) {
        throw new UsageError(`${flag}: the value of "${key}" ("${value}") is not a label value. Allowed: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`, command);
      }
      if (flag === '--labels' && (RESERVED_LABELS.includes(key) || RESERVED_PREFIXES.some((p) => key.startsWith(p)))) {
        throw new UsageError(`--labels: "${key}" is set by cdk8s-compose (Service selectors and network policies use it). Fix: use another key`, command);
      }
      if (key in result && result[key] !== value) {
        throw new UsageError(`${flag} gives "${key}" twice`, command);
      }
      result[key] = value;
    }
  }
  return result;
}

/**
 * A whole number of seconds (`300`), or a duration as compose writes it (`300s`, `5m`, `1m30s`, `500ms`, `1.5h`:
 * `parseDuration` of lib/compose/units, the one duration parser) → seconds.
 */
export function parseDuration(text: string, flag: string, command?: string): number {
  const seconds = /^\d+$/.test(text) ? Number(text) : parseComposeDuration(text);
  if (seconds === undefined || !(seconds > 0)) {
    throw new UsageError(`${flag} "${text}" is not a duration. Allowed: a positive number of seconds, or e.g. 300s, 5m, 1h`, command);
  }
  return seconds;
}

/** ` (did you mean --x?)` for a close known option. */
function suggest(flag: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known.filter((k) => k.startsWith('--'))) {
    const distance = editDistance(flag, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best ? ` (did you mean ${best}?)` : '';
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}
