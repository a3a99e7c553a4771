import { spawn } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import { AddressInfo } from 'net';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { shellSplit } from '../../lib/compose/shell-split';

/**
 * The commands of a runbook, and the means to check them against the real kubectl without a cluster: a local HTTP
 * server that answers API discovery only (the resource kinds of Kubernetes 1.27 and of the pinned KubeVirt and CDI
 * CRDs in schemas/), so that kubectl maps kinds and runs `--dry-run=client` offline, and answers 404 to everything
 * else, so that a command that needs a cluster gets as far as asking it.
 */

/** One command line of a `sh` block: its argv (up to the first pipe or redirection) and the heredoc it feeds. */
export interface RunbookCommand {
  /** The line as written. */
  readonly line: string;
  /** 1-based line number in the runbook. */
  readonly lineNumber: number;
  readonly argv: readonly string[];
  /** The heredoc's body (`<<'EOF'` … `EOF`), when the command reads one. */
  readonly stdin?: string;
}

/** Every command of the runbook's `sh` blocks (comments and blank lines left out; heredoc bodies attached). */
export function runbookCommands(markdown: string): RunbookCommand[] {
  const lines = markdown.split('\n');
  const commands: RunbookCommand[] = [];
  let inBlock = false;
  let indent = '';
  // The fence is three backticks, or more when the block holds a run of them (lib/util/shell-words.ts).
  let fence = '```';
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i].trim();
    const open = /^(`{3,})sh$/.exec(text);
    if (!inBlock && open) {
      inBlock = true;
      fence = open[1];
      indent = lines[i].slice(0, lines[i].indexOf('`'));
      continue;
    }
    if (inBlock && text === fence) {
      inBlock = false;
      continue;
    }
    if (!inBlock || text === '' || text.startsWith('#')) {
      continue;
    }
    const words = shellSplit(text);
    if (!words) {
      throw new Error(`runbook line ${i + 1}: unbalanced quotes: ${text}`);
    }
    const cut = words.findIndex((w) => ['|', '>', '<', '&&', ';'].includes(w) || w.startsWith('<<'));
    const argv = cut < 0 ? words : words.slice(0, cut);
    const heredoc = words.find((w) => w.startsWith('<<'));
    let stdin: string | undefined;
    const lineNumber = i + 1;
    if (heredoc) {
      const end = heredoc.slice(2);
      const body: string[] = [];
      while (++i < lines.length && lines[i].trim() !== end) {
        body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i]);
      }
      stdin = `${body.join('\n')}\n`;
    }
    commands.push({ line: text, lineNumber, argv, stdin });
  }
  return commands;
}

interface DiscoveredResource {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly shortNames?: readonly string[];
}

/** The built-in resources the runbooks use, as Kubernetes 1.27 serves them (name, kind, scope, short names). */
const BUILT_IN: Readonly<Record<string, readonly DiscoveredResource[]>> = {
  'v1': [
    { name: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] },
    { name: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'] },
    { name: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'] },
    { name: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'] },
    { name: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true, shortNames: ['pvc'] },
    { name: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false, shortNames: ['pv'] },
    { name: 'pods', kind: 'Pod', namespaced: true, shortNames: ['po'] },
    { name: 'resourcequotas', kind: 'ResourceQuota', namespaced: true, shortNames: ['quota'] },
    { name: 'secrets', kind: 'Secret', namespaced: true },
    { name: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'] },
    { name: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'] },
  ],
  'apps/v1': [
    { name: 'daemonsets', kind: 'DaemonSet', namespaced: true, shortNames: ['ds'] },
    { name: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'] },
    { name: 'replicasets', kind: 'ReplicaSet', namespaced: true, shortNames: ['rs'] },
    { name: 'statefulsets', kind: 'StatefulSet', namespaced: true, shortNames: ['sts'] },
  ],
  'autoscaling/v2': [
    { name: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true, shortNames: ['hpa'] },
  ],
  'batch/v1': [
    { name: 'cronjobs', kind: 'CronJob', namespaced: true, shortNames: ['cj'] },
    { name: 'jobs', kind: 'Job', namespaced: true },
  ],
  'networking.k8s.io/v1': [
    { name: 'ingresses', kind: 'Ingress', namespaced: true, shortNames: ['ing'] },
    { name: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true, shortNames: ['netpol'] },
  ],
  'rbac.authorization.k8s.io/v1': [
    { name: 'rolebindings', kind: 'RoleBinding', namespaced: true },
    { name: 'roles', kind: 'Role', namespaced: true },
  ],
};

/** The resources of the pinned KubeVirt and CDI CRDs (schemas/), by group/version, as their API serves them. */
function crdResources(schemas: string): Record<string, DiscoveredResource[]> {
  const groups: Record<string, DiscoveredResource[]> = {};
  for (const dir of ['kubevirt', 'cdi']) {
    for (const version of fs.readdirSync(path.join(schemas, dir))) {
      for (const file of fs.readdirSync(path.join(schemas, dir, version)).filter((f) => f.endsWith('.yaml'))) {
        for (const doc of parseAllDocuments(fs.readFileSync(path.join(schemas, dir, version, file), 'utf-8'))) {
          const crd = doc.errors.length === 0 ? doc.toJS() : undefined;
          if (crd?.kind !== 'CustomResourceDefinition') {
            continue;
          }
          for (const served of (crd.spec.versions ?? []).filter((v: any) => v.served)) {
            const gv = `${crd.spec.group}/${served.name}`;
            (groups[gv] ??= []).push({
              name: crd.spec.names.plural,
              kind: crd.spec.names.kind,
              namespaced: crd.spec.scope === 'Namespaced',
              shortNames: crd.spec.names.shortNames,
            });
          }
        }
      }
    }
  }
  return groups;
}

/** A local API server that answers discovery only. */
export interface DiscoveryServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startDiscoveryServer(schemas: string): Promise<DiscoveryServer> {
  const groups: Record<string, readonly DiscoveredResource[]> = { ...BUILT_IN, ...crdResources(schemas) };
  const resourceList = (gv: string) => ({
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: gv,
    resources: groups[gv].map((r) => ({
      name: r.name,
      singularName: r.kind.toLowerCase(),
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: r.shortNames,
    })),
  });
  const named = [
    ...new Set(
      Object.keys(groups)
        .filter((gv) => gv.includes('/'))
        .map((gv) => gv.split('/')[0]),
    ),
  ].sort();
  const server = http.createServer((req, res) => {
    const url = (req.url ?? '').split('?')[0];
    let body: unknown;
    if (url === '/api') {
      body = { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
    } else if (url === '/apis') {
      body = {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: named.map((group) => {
          const versions = Object.keys(groups)
            .filter((gv) => gv.startsWith(`${group}/`))
            .map((gv) => ({ groupVersion: gv, version: gv.split('/')[1] }));
          return { name: group, versions, preferredVersion: versions[0] };
        }),
      };
    } else if (url === '/api/v1') {
      body = resourceList('v1');
    } else if (url.startsWith('/apis/') && groups[url.slice('/apis/'.length)]) {
      body = resourceList(url.slice('/apis/'.length));
    }
    res.writeHead(body ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify(
        body ?? {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
          message: 'not found',
        },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A kubeconfig whose one context points at `server`, written to `file`. */
export function writeKubeconfig(file: string, server: string): void {
  fs.writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: test, cluster: {server: "${server}"}}]`,
      'users: [{name: test, user: {token: test}}]',
      'contexts: [{name: test, context: {cluster: test, user: test, namespace: default}}]',
      'current-context: test',
      '',
    ].join('\n'),
  );
}

export interface ToolRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a tool with an argv (no shell), bounded in time. */
export function runTool(
  argv: readonly string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string; timeoutMs?: number },
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd: options.cwd, env: options.env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/** kubectl's own words for a command line it could not parse (flags, arguments, resource types). */
export const KUBECTL_USAGE_ERROR =
  /unknown (shorthand )?flag|unknown command|invalid argument|flag needs an argument|required flag|accepts (at most|exactly|between)|See 'kubectl [a-z -]+ -h|doesn't have a resource type|error: (you must|must specify|expected|arguments in resource\/name form|there is no need to specify a resource type)/i;
