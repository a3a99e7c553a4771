import { GITOPS_SPECS } from './gitops-options';
import type { OptionSpec } from './option-spec';

// The command line's vocabulary: the commands, their options, their usage lines and help texts.

/** The program name in messages and usage. */
export const PROGRAM = 'cdk8s-compose';

/** The commands. */
export type CommandName = 'convert' | 'analyze' | 'verify' | 'deploy' | 'move-data';

/** Every command, in the order the help lists them. */
export const COMMAND_NAMES: readonly CommandName[] = ['convert', 'analyze', 'verify', 'deploy', 'move-data'];

const CONVERSION_SPECS: readonly OptionSpec[] = [
  {
    name: 'file',
    short: 'f',
    kind: 'list',
    value: 'FILE',
    help: "compose file; repeat to merge in compose's override order (default: compose.yaml, compose.yml, docker-compose.yaml, docker-compose.yml and its .override file)",
  },
  { name: 'profile', kind: 'list', value: 'NAME', help: 'activate a compose profile; repeatable, "*" activates all' },
  {
    name: 'env-file',
    kind: 'list',
    value: 'FILE',
    help: "env file for interpolation instead of the project's .env; repeatable, later files win",
  },
  { name: 'project-name', short: 'p', kind: 'string', value: 'NAME', help: 'compose project name' },
  {
    name: 'image',
    kind: 'list',
    value: 'SERVICE=REF',
    help: 'image of a service instead of its own (or of the one build: makes); repeatable',
  },
  {
    name: 'registry',
    kind: 'string',
    value: 'HOST[/PATH]',
    help: 'registry of the images built from source: HOST[/PATH]/<project>-<service> (default: no registry, as docker compose build tags them)',
  },
  {
    name: 'allow-outside-project',
    kind: 'boolean',
    help: 'read env, secret, config and bind-mounted files outside the project folder',
  },
  {
    name: 'namespace',
    kind: 'string',
    value: 'NAME',
    help: 'namespace of every object (default: the compose project name)',
  },
  {
    name: 'allow-system-namespace',
    kind: 'boolean',
    help:
      'accept a namespace of the cluster (kube-system, default, …) or of a platform component (ingress-nginx, argocd, ' +
      'flux-system, cert-manager, …) as the namespace (refused otherwise)',
  },
  {
    name: 'controller',
    kind: 'string',
    value: 'deployment|statefulset',
    help: 'controller of the stateful dependencies (databases, caches); other services are Deployments',
  },
  { name: 'labels', kind: 'list', value: 'K=V,K=V', help: 'labels for every object and pod template; repeatable' },
  {
    name: 'annotations',
    kind: 'list',
    value: 'K=V,K=V',
    help: 'annotations for every object and pod template; repeatable',
  },
  {
    name: 'ingress-host',
    kind: 'list',
    value: 'SERVICE=HOST',
    help: "host of a service's Ingress rule (default: kompose.service.expose, else SERVICE.example.com); repeatable",
  },
  {
    name: 'external',
    kind: 'list',
    value: 'SERVICE=HOST[:PORT]',
    help: 'a managed endpoint in place of a service: no workload, claims, backup or waits; a Service of its name resolves to HOST; repeatable',
  },
  {
    name: 'external-cidr',
    kind: 'list',
    value: 'SERVICE=CIDR',
    help: "addresses of an --external host name, which the NetworkPolicies let its clients reach (default: the IP's own, none for a host name); repeatable",
  },
  { name: 'target', kind: 'string', value: 'container|vm|auto', help: 'where services run (default container)' },
  {
    name: 'image-base-url',
    kind: 'string',
    value: 'URL',
    help: 'folder URL where the golden VM images are published (with --target vm|auto)',
  },
  {
    name: 'vm-data-size',
    kind: 'string',
    value: 'SIZE',
    help: "size of the VM's data disk, which holds its services' named volumes, e.g. 50Gi (default 10Gi)",
  },
  {
    name: 'vm-ssh-key-secret',
    kind: 'string',
    value: 'NAME',
    help: "Secret of SSH public keys for the VM's maintenance user ops, which you create (default: none; RUNBOOK.md shows how to add one later)",
  },
  {
    name: 'network-policies',
    kind: 'string',
    value: 'on|off',
    help: 'NetworkPolicies from the compose networks: default deny, DNS, per-network allows (default on)',
  },
  {
    name: 'ingress-controller-namespace',
    kind: 'string',
    value: 'NAME',
    help: 'namespace of the ingress controller, which the NetworkPolicies let in to the Ingress ports (default ingress-nginx)',
  },
  {
    name: 'ingress-controller-pod-labels',
    kind: 'list',
    value: 'K=V,K=V',
    help: "labels of the ingress controller's pods, to let in only them (default: every pod of its namespace); repeatable",
  },
  {
    name: 'ingress-class-name',
    kind: 'string',
    value: 'NAME',
    help: 'ingressClassName of the Ingresses (default nginx; a kompose.service.expose.ingress-class-name label wins)',
  },
  {
    name: 'storage-class-name',
    kind: 'string',
    value: 'NAME',
    help: "storageClassName of the claims (default: the cluster's default class; kompose.volume.storage-class-name wins)",
  },
  {
    name: 'volume-size',
    kind: 'list',
    value: 'NAME=SIZE',
    help: 'size of the claim of a named volume or of a folder bound read-write (./data), such as data=20Gi; repeatable (default 1Gi, or kompose.volume.size)',
  },
  {
    name: 'shared-volumes',
    kind: 'string',
    value: 'node|rwx',
    help: 'pods that mount one claim: kept on one node by a pod affinity (node, the default), or ReadWriteMany claims (rwx; needs a storage class that supports it)',
  },
  {
    name: 'copy-up',
    kind: 'string',
    value: 'on|off',
    help: "copy the image's files into a new named volume at its mount path, as docker does (default on; volume.nocopy turns it off for one mount)",
  },
  {
    name: 'backup',
    kind: 'string',
    value: 'on|off',
    help: 'backup CronJobs of the stateful dependencies: on for all, off for none (default: those whose data compose keeps in a volume)',
  },
  {
    name: 'quota',
    kind: 'string',
    value: 'on|off|KEY=AMOUNT,...',
    help: 'the ResourceQuota: on (computed from the app, the default), off, or amounts such as limits.memory=16Gi,requests.cpu=4 (the rest computed)',
  },
  {
    name: 'default-limits',
    kind: 'boolean',
    help: 'give containers without compose limits a limit of 1 cpu and 512Mi memory (default: a limit only where compose sets one; requests always)',
  },
];

/** Where the values of the app's Secrets go (convert and deploy: lib/cli/options/secrets-options.ts). */
const SECRETS_SPECS: readonly OptionSpec[] = [
  {
    name: 'secrets',
    kind: 'string',
    value: 'inline|separate|external',
    help: 'inline (default): the Secrets with their values beside the other manifests; separate: the Secrets in secrets/ (ignored by Git, applied first), no value elsewhere; external: External Secrets Operator ExternalSecrets instead, and secrets/push-secrets.sh to fill the store',
  },
  {
    name: 'secret-store',
    kind: 'string',
    value: 'NAME',
    help: 'the SecretStore the ExternalSecrets read (with --secrets external)',
  },
  {
    name: 'secret-store-kind',
    kind: 'string',
    value: 'SecretStore|ClusterSecretStore',
    help: 'the kind of --secret-store (default SecretStore)',
  },
];

const COMMON_SPECS: readonly OptionSpec[] = [
  { name: 'debug', kind: 'boolean', help: 'show stack traces' },
  { name: 'help', short: 'h', kind: 'boolean', help: 'show this help' },
];

/** The options of the commands that run kubectl against a cluster: its context and how long each wait may take. */
const CLUSTER_SPECS: readonly OptionSpec[] = [
  { name: 'context', kind: 'string', value: 'NAME', help: 'kubectl context (default: the current context)' },
  {
    name: 'timeout',
    kind: 'string',
    value: 'DURATION',
    help: 'how long each wait may take, e.g. 300s, 5m (default 300s)',
  },
];

/** The options of each command, in the order the help lists them. */
export const COMMAND_SPECS: Readonly<Record<CommandName, readonly OptionSpec[]>> = {
  'convert': [
    ...CONVERSION_SPECS,
    {
      name: 'out',
      short: 'o',
      aliases: ['output'],
      kind: 'string',
      value: 'DIR|FILE',
      help: 'output folder (default: the current folder), or a .yaml/.yml file for one file',
    },
    {
      name: 'single-file',
      kind: 'boolean',
      help: 'write every manifest into one file (<namespace>.yaml) instead of one file per resource',
    },
    { name: 'stdout', kind: 'boolean', help: 'print the manifests to stdout and write nothing' },
    { name: 'force', kind: 'boolean', help: 'overwrite files that cdk8s-compose did not generate' },
    ...GITOPS_SPECS,
    ...SECRETS_SPECS,
    {
      name: 'chart',
      short: 'c',
      kind: 'boolean',
      help: 'write a Helm chart (Chart.yaml, values.yaml, values.schema.json, templates/) in place of the wave folders; its Secrets as --secrets says (default separate: no secret value in the chart)',
    },
    {
      name: 'quiet',
      short: 'q',
      kind: 'boolean',
      help: 'print only errors and the summary (the warning count and what was written)',
    },
    ...COMMON_SPECS,
  ],
  'analyze': [
    ...CONVERSION_SPECS,
    { name: 'json', kind: 'boolean', help: 'print the assessment as JSON' },
    ...COMMON_SPECS,
  ],
  'verify': [
    ...CONVERSION_SPECS,
    { name: 'json', kind: 'boolean', help: 'print every expectation as JSON' },
    ...COMMON_SPECS,
  ],
  'deploy': [
    ...CONVERSION_SPECS,
    ...CLUSTER_SPECS,
    { name: 'dry-run', kind: 'boolean', help: 'print the kubectl commands instead of running them' },
    {
      name: 'out',
      short: 'o',
      aliases: ['output'],
      kind: 'string',
      value: 'DIR',
      help: 'also keep the manifests and the runbook in this folder (default: a temporary folder)',
    },
    { name: 'force', kind: 'boolean', help: 'with -o: overwrite files that cdk8s-compose did not generate' },
    ...SECRETS_SPECS,
    {
      name: 'quiet',
      short: 'q',
      kind: 'boolean',
      help: 'print only errors and the summary (no warning lines, kubectl commands or their output)',
    },
    ...COMMON_SPECS,
  ],
  'move-data': [
    ...CONVERSION_SPECS,
    ...CLUSTER_SPECS,
    { name: 'dry-run', kind: 'boolean', help: 'print the commands instead of running them' },
    {
      name: 'overwrite',
      kind: 'boolean',
      help: 'empty a claim that already holds files before filling it (default: stop at such a claim)',
    },
    {
      name: 'logical',
      kind: 'boolean',
      help: 'fill the claims of postgres, mysql, mariadb and mongo by dump and restore instead of copying files',
    },
    ...COMMON_SPECS,
  ],
};

const USAGE: Readonly<Record<string, string>> = {
  'convert':
    `${PROGRAM} convert [-f FILE]... [-o DIR|FILE] [--namespace NAME] [--controller deployment|statefulset] [--labels K=V,...] [--annotations K=V,...] [options]\n` +
    `       ${PROGRAM} convert FILE --output DIR [options]`,
  'analyze': `${PROGRAM} analyze [-f FILE]... [--json] [options]`,
  'verify': `${PROGRAM} verify [-f FILE]... [--json] [options]`,
  'deploy': `${PROGRAM} deploy [-f FILE]... [--context NAME] [--timeout 300s] [--dry-run] [options]`,
  'move-data': `${PROGRAM} move-data [-f FILE]... [--context NAME] [--dry-run] [--overwrite] [--logical] [options]`,
};

/** The one-line usage of a command, or of the program. */
export function usageLine(command?: string): string {
  return command && USAGE[command]
    ? `Usage: ${USAGE[command]}`
    : `Usage: ${PROGRAM} ${COMMAND_NAMES.join('|')} [options]   (${PROGRAM} --help)`;
}

/** The help text of a command, or of the program. */
export function helpText(command?: string): string {
  if ((COMMAND_NAMES as readonly string[]).includes(command ?? '')) {
    const rows = COMMAND_SPECS[command as CommandName].map((spec) => {
      const names = [
        spec.short ? `-${spec.short}, ` : '    ',
        `--${spec.name}`,
        ...(spec.aliases ?? []).map((a) => `, --${a}`),
      ].join('');
      return [`${names}${spec.value ? ` ${spec.value}` : ''}`, spec.help];
    });
    const width = Math.max(...rows.map(([left]) => left.length)) + 2;
    return (
      [
        `Usage: ${USAGE[command!]}`,
        '',
        COMMAND_SUMMARY[command!],
        '',
        'Options:',
        ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`),
        '',
        'Exit codes: 0 success, 1 bad input (verify: an expectation is broken), 2 bad usage, 3 a kubectl command failed or a wait timed out (deploy), or a command of the move failed or its counts differ (move-data).',
      ].join('\n') + '\n'
    );
  }
  return (
    [
      `Usage: ${PROGRAM} <command> [options]`,
      '',
      'Commands:',
      `  convert   ${COMMAND_SUMMARY.convert}`,
      `  analyze   ${COMMAND_SUMMARY.analyze}`,
      `  verify    ${COMMAND_SUMMARY.verify}`,
      `  deploy    ${COMMAND_SUMMARY.deploy}`,
      `  move-data ${COMMAND_SUMMARY['move-data']}`,
      '',
      `Run "${PROGRAM} <command> --help" for the options of a command.`,
    ].join('\n') + '\n'
  );
}

const COMMAND_SUMMARY: Readonly<Record<string, string>> = {
  'convert': 'Convert a compose project into Kubernetes manifests, one folder per deploy wave, and RUNBOOK.md.',
  'analyze':
    'Print a migration assessment of every service: target, state, exposure, volumes, secrets, dependencies, warnings.',
  'verify':
    'Check that the converted app behaves like the compose app: names and ports reached, networks, environment, files, waits.',
  'deploy': 'Convert, then apply the waves with kubectl, waiting for the stateful dependencies between them.',
  'move-data':
    "From the compose host: stop the compose app, copy each volume's and bind folder's files into its claim, compare them, start the Kubernetes app.",
};
