import { DEFAULT_GITOPS_BRANCH, GitOpsMode, fluxUrl } from '../../../lib/cli/options/gitops-options';
import { ConvertOptions, UsageError, helpText, parseCommandLine } from '../../../lib/cli/options/options';

/** The GitOps options of `convert` (lib/cli/options/gitops-options.ts), as the command line gives them. */

function convertOptions(args: readonly string[]): ConvertOptions {
  const parsed = parseCommandLine(['convert', ...args]);
  if (parsed.command !== 'convert') {
    throw new Error(`not a convert: ${parsed.command}`);
  }
  return parsed.options;
}

function usageError(args: readonly string[]): string {
  try {
    parseCommandLine(['convert', ...args]);
  } catch (err) {
    if (err instanceof UsageError) {
      return err.message;
    }
    throw err;
  }
  throw new Error(`no usage error for ${args.join(' ')}`);
}

test('the defaults: Argo CD sync waves on, placeholders for the repository and path, the main branch, no overlay', () => {
  const options = convertOptions([]);
  expect(options.gitops).toEqual({
    mode: GitOpsMode.ARGOCD,
    repo: undefined,
    path: undefined,
    branch: DEFAULT_GITOPS_BRANCH,
    overlays: [],
  });
  expect(options.syncWaves).toBe(true);
  expect(DEFAULT_GITOPS_BRANCH).toBe('main');
});

test('--gitops none turns the sync waves off; one-file outputs keep them', () => {
  expect(convertOptions(['--gitops', 'none']).syncWaves).toBe(false);
  expect(convertOptions(['--stdout']).syncWaves).toBe(true);
  expect(convertOptions(['--single-file', '--gitops', 'none']).gitops.mode).toBe(GitOpsMode.NONE);
});

test("the repository, the branch, and the path without ./ and trailing slashes (. for the repository's root)", () => {
  const { gitops } = convertOptions([
    '--gitops-repo',
    'git@github.com:acme/shop.git',
    '--gitops-path',
    './deploy/k8s/',
    '--gitops-branch',
    'env/prod',
  ]);
  expect([gitops.repo, gitops.path, gitops.branch]).toEqual(['git@github.com:acme/shop.git', 'deploy/k8s', 'env/prod']);
  const repo = ['--gitops-repo', 'https://g.example.com/r.git'];
  expect(convertOptions([...repo, '--gitops-path', '.']).gitops.path).toBe('.');
  expect(convertOptions([...repo, '--gitops-path', './']).gitops.path).toBe('.');
  expect(convertOptions(['--gitops-repo', 'ssh://git@git.example.com:2222/shop.git']).gitops.repo).toBe(
    'ssh://git@git.example.com:2222/shop.git',
  );
});

test('Flux gets an scp-like git@host:path as ssh://git@host/path, the form its GitRepository CRD takes', () => {
  expect(fluxUrl('git@github.com:acme/shop.git')).toBe('ssh://git@github.com/acme/shop.git');
  expect(fluxUrl('git@github.com:/srv/shop.git')).toBe('ssh://git@github.com/srv/shop.git');
  expect(fluxUrl('ssh://git@git.example.com:2222/shop.git')).toBe('ssh://git@git.example.com:2222/shop.git');
  expect(fluxUrl('https://git.example.com/shop.git')).toBe('https://git.example.com/shop.git');
});

test('--overlay is repeatable; each name once, sorted', () => {
  expect(convertOptions(['--overlay', 'staging', '--overlay', 'prod', '--overlay', 'staging']).gitops.overlays).toEqual(
    ['prod', 'staging'],
  );
});

test.each([
  [['--gitops', 'ArgoCD'], '--gitops "ArgoCD" is not allowed. Allowed: argocd, none'],
  [
    ['--gitops', 'none', '--gitops-path', 'k8s', '--gitops-branch', 'x'],
    '--gitops-path, --gitops-branch are for gitops/, which --gitops none does not write',
  ],
  [
    ['--single-file', '--gitops-repo', 'https://g.example.com/r.git', '--overlay', 'prod'],
    '--gitops-repo, --overlay need the folder output (one file per resource): leave out -o FILE.yaml, --single-file and --stdout',
  ],
  [
    ['--gitops-path', 'k8s', '--gitops-branch', 'x'],
    '--gitops-path, --gitops-branch are for gitops/, which is written only with --gitops-repo URL: add it',
  ],
  [['--gitops-branch', 'main'], '--gitops-branch is for gitops/, which is written only with --gitops-repo URL: add it'],
  [
    ['--gitops-repo', 'git://git.example.com/shop.git'],
    '--gitops-repo "git://git.example.com/shop.git" is not a Git URL. Allowed: https://…, ssh://…, git@host:path',
  ],
  [
    ['--gitops-repo', 'file:///srv/git/shop.git'],
    '--gitops-repo "file:///srv/git/shop.git" is not a Git URL. Allowed: https://…, ssh://…, git@host:path',
  ],
  [
    ['-o', 'all.yml', '--gitops-branch', 'main'],
    '--gitops-branch needs the folder output (one file per resource): leave out -o FILE.yaml, --single-file and --stdout',
  ],
  [
    ['--gitops-repo', 'github.com/acme/shop'],
    '--gitops-repo "github.com/acme/shop" is not a Git URL. Allowed: https://…, ssh://…, git@host:path',
  ],
  [
    ['--gitops-repo', 'https://g.example.com/r.git', '--gitops-path', 'a//b'],
    '--gitops-path "a//b" is not a path inside the repository. Allowed: a relative path without "..", e.g. deploy/k8s',
  ],
  [
    ['--gitops-repo', 'https://g.example.com/r.git', '--gitops-path', 'a/../b'],
    '--gitops-path "a/../b" is not a path inside the repository. Allowed: a relative path without "..", e.g. deploy/k8s',
  ],
  [
    ['--gitops-repo', 'https://g.example.com/r.git', '--gitops-branch', '/main'],
    '--gitops-branch "/main" is not a branch name. Allowed: letters, digits, ".", "_", "-" and "/"',
  ],
  [
    ['--gitops-repo', 'https://g.example.com/r.git', '--gitops-branch', 'a b'],
    '--gitops-branch "a b" is not a branch name. Allowed: letters, digits, ".", "_", "-" and "/"',
  ],
  [
    ['--overlay', 'prod/eu'],
    '--overlay "prod/eu" is not an overlay name. Allowed: a DNS-1123 label (lower case letters, digits and "-"), e.g. prod',
  ],
])('%j is refused: %s', (args, message) => {
  expect(usageError(args)).toBe(message);
});

test('convert --help lists the options; analyze and deploy have none of them', () => {
  for (const flag of [
    '--gitops argocd|none',
    '--gitops-repo URL',
    '--gitops-path PATH',
    '--gitops-branch BRANCH',
    '--overlay NAME',
  ]) {
    expect(helpText('convert')).toContain(flag);
    expect(helpText('analyze')).not.toContain(flag.split(' ')[0] + ' ');
    expect(helpText('deploy')).not.toContain(flag.split(' ')[0] + ' ');
  }
  expect(() => parseCommandLine(['deploy', '--gitops', 'none'])).toThrow(UsageError);
});
