import type { OptionSpec } from './option-spec';

/** The `--gitops` values. */
export enum GitOpsMode {
  /** Sync-wave annotations on every object, and `gitops/` with an Argo CD Application and Flux Kustomizations. */
  ARGOCD = 'argocd',
  /** Neither. */
  NONE = 'none',
}

/** What `convert` writes for GitOps tools beside the manifests. */
export interface GitOpsOptions {
  readonly mode: GitOpsMode;
  /** `--gitops-repo`: the Git repository the output is committed to. */
  readonly repo?: string;
  /** `--gitops-path`: the output folder's path in that repository, without `./` or a trailing `/` (`.` for its root). */
  readonly path?: string;
  /** `--gitops-branch`: the branch Argo CD and Flux follow. */
  readonly branch: string;
  /** `--overlay`: the Kustomize overlays to start, by name. */
  readonly overlays: readonly string[];
}

/** The branch the GitOps objects follow when `--gitops-branch` is not given. */
export const DEFAULT_GITOPS_BRANCH = 'main';

/** The options of `convert` that shape its output for Kustomize, Argo CD and Flux. */
export const GITOPS_SPECS: readonly OptionSpec[] = [
  {
    name: 'gitops',
    kind: 'string',
    value: 'argocd|none',
    help: 'argocd (default): sync-wave annotations on every object, and gitops/ with an Argo CD Application and Flux Kustomizations per wave; none: neither',
  },
  {
    name: 'gitops-repo',
    kind: 'string',
    value: 'URL',
    help: 'the Git repository the output is committed to (https://…, ssh://… or git@host:path); gitops/ is written only with it',
  },
  {
    name: 'gitops-path',
    kind: 'string',
    value: 'PATH',
    help: "the output folder's path in that repository, for gitops/ (default: a placeholder, with a warning); needs --gitops-repo",
  },
  {
    name: 'gitops-branch',
    kind: 'string',
    value: 'BRANCH',
    help: `the branch Argo CD and Flux follow (default ${DEFAULT_GITOPS_BRANCH}); needs --gitops-repo`,
  },
  {
    name: 'overlay',
    kind: 'list',
    value: 'NAME',
    help: 'start overlays/NAME/kustomization.yaml, a Kustomize overlay of the output that sets replicas and Ingress hosts (written once, then yours); repeatable',
  },
];

type Values = Readonly<Record<string, string | boolean | string[] | undefined>>;

const OVERLAY_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** The URLs both Argo CD and Flux clone from (Flux's CRD takes http(s):// and ssh:// only; see {@link fluxUrl}). */
const REPO_URL = /^((https?|ssh):\/\/\S+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:\S+)$/;
const SCP_LIKE = /^([A-Za-z0-9._-]+@[A-Za-z0-9.-]+):\/?(\S+)$/;

/**
 * The repository's URL as Flux's GitRepository takes it: an scp-like `git@host:path` becomes `ssh://git@host/path`
 * (Flux's CRD refuses anything but http(s):// and ssh://); the others as given.
 */
export function fluxUrl(repo: string): string {
  const scp = SCP_LIKE.exec(repo);
  return scp && !repo.includes('://') ? `ssh://${scp[1]}/${scp[2]}` : repo;
}
const BRANCH = /^(?!\/|.*\/$|.*\/\/|.*\.\.)[A-Za-z0-9._/-]+$/;

/**
 * The GitOps options from the scanned values of `convert`. `oneFile` is true for the one-file outputs (`-o FILE.yaml`,
 * `--single-file`, `--stdout`), which get no kustomizations, overlays or `gitops/`. `fail` throws the usage error.
 */
export function parseGitOpsOptions(values: Values, oneFile: boolean, fail: (message: string) => never): GitOpsOptions {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const modeText = text('gitops') ?? GitOpsMode.ARGOCD;
  if (!(Object.values(GitOpsMode) as string[]).includes(modeText)) {
    fail(`--gitops "${modeText}" is not allowed. Allowed: argocd, none`);
  }
  const mode = modeText as GitOpsMode;
  const repo = text('gitops-repo');
  const rawPath = text('gitops-path');
  const branch = text('gitops-branch');
  const overlays = Array.isArray(values.overlay) ? values.overlay : [];
  const folderOnly = [
    ...(repo !== undefined ? ['--gitops-repo'] : []),
    ...(rawPath !== undefined ? ['--gitops-path'] : []),
    ...(branch !== undefined ? ['--gitops-branch'] : []),
    ...(overlays.length > 0 ? ['--overlay'] : []),
  ];
  if (oneFile && folderOnly.length > 0) {
    fail(
      `${folderOnly.join(', ')} ${folderOnly.length === 1 ? 'needs' : 'need'} the folder output (one file per resource): ` +
        'leave out -o FILE.yaml, --single-file and --stdout',
    );
  }
  const gitopsOnly = folderOnly.filter((flag) => flag !== '--overlay');
  if (mode === GitOpsMode.NONE && gitopsOnly.length > 0) {
    fail(
      `${gitopsOnly.join(', ')} ${gitopsOnly.length === 1 ? 'is' : 'are'} for gitops/, which --gitops none does not write`,
    );
  }
  if (repo !== undefined && !REPO_URL.test(repo)) {
    fail(`--gitops-repo "${repo}" is not a Git URL. Allowed: https://…, ssh://…, git@host:path`);
  }
  const needRepo = gitopsOnly.filter((flag) => flag !== '--gitops-repo');
  if (repo === undefined && needRepo.length > 0) {
    fail(
      `${needRepo.join(', ')} ${needRepo.length === 1 ? 'is' : 'are'} for gitops/, which is written only with --gitops-repo URL: add it`,
    );
  }
  let path: string | undefined;
  if (rawPath !== undefined) {
    path = rawPath.replace(/^(\.\/)+/, '').replace(/\/+$/, '') || '.';
    if (path.startsWith('/') || path.split('/').some((part) => part === '..' || part === '') || /\s/.test(path)) {
      fail(
        `--gitops-path "${rawPath}" is not a path inside the repository. Allowed: a relative path without "..", e.g. deploy/k8s`,
      );
    }
  }
  if (branch !== undefined && !BRANCH.test(branch)) {
    fail(`--gitops-branch "${branch}" is not a branch name. Allowed: letters, digits, ".", "_", "-" and "/"`);
  }
  for (const overlay of overlays) {
    if (!OVERLAY_NAME.test(overlay)) {
      fail(
        `--overlay "${overlay}" is not an overlay name. Allowed: a DNS-1123 label (lower case letters, digits and "-"), e.g. prod`,
      );
    }
  }
  return { mode, repo, path, branch: branch ?? DEFAULT_GITOPS_BRANCH, overlays: [...new Set(overlays)].sort() };
}
