import { ServiceTarget } from '../../../lib/app/settings';
import { OutputLayout, UsageError, helpText, parseCommandLine } from '../../../lib/cli/options/options';
import { WorkloadController } from '../../../lib/stateful/stateful-dependency';

function usageError(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      return err.message;
    }
    throw err;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
}

describe('convert', () => {
  test('the kompose shape: repeated -f, -o, --namespace, --controller, --labels, --annotations', () => {
    const parsed = parseCommandLine([
      'convert',
      '-f',
      'a.yaml',
      '-f',
      'b.yaml',
      '-o',
      'out',
      '--namespace',
      'shop',
      '--controller',
      'statefulset',
      '--labels',
      'team=shop,tier=web',
      '--annotations',
      'owner=ops@example.com',
    ]);
    expect(parsed).toEqual({
      command: 'convert',
      debug: false,
      options: expect.objectContaining({
        files: ['a.yaml', 'b.yaml'],
        out: 'out',
        namespace: 'shop',
        controller: WorkloadController.STATEFUL_SET,
        labels: { team: 'shop', tier: 'web' },
        annotations: { owner: 'ops@example.com' },
        layout: OutputLayout.FILE_PER_RESOURCE,
        target: ServiceTarget.CONTAINER,
        stdout: false,
        force: false,
      }),
    });
  });

  test("the second tool's shape: a positional file and --output", () => {
    const parsed = parseCommandLine(['convert', 'compose.yaml', '--output', 'k8s']);
    expect(parsed).toMatchObject({ command: 'convert', options: { files: ['compose.yaml'], out: 'k8s' } });
  });

  test('no options: discovery and the current folder', () => {
    expect(parseCommandLine(['convert'])).toMatchObject({ command: 'convert', options: { files: [], out: undefined } });
  });

  test('--opt=value, repeated lists, and every loader option', () => {
    const parsed = parseCommandLine([
      'convert',
      '--file=c.yaml',
      '--profile',
      'debug',
      '--profile=tools',
      '--env-file',
      'prod.env',
      '--image',
      'api=registry.example.com/api:1',
      '--image=web=nginx:1.27',
      '--allow-outside-project',
      '-p',
      'myshop',
      '--ingress-host',
      'web=shop.example.com',
      '--target',
      'container',
      '--stdout',
      '--force',
      '--debug',
    ]);
    expect(parsed).toMatchObject({
      debug: true,
      options: {
        files: ['c.yaml'],
        profiles: ['debug', 'tools'],
        envFiles: ['prod.env'],
        projectName: 'myshop',
        images: { api: 'registry.example.com/api:1', web: 'nginx:1.27' },
        allowOutsideProject: true,
        ingressHosts: { web: 'shop.example.com' },
        stdout: true,
        force: true,
      },
    });
  });

  test('one file: -o with a .yaml name, or --single-file', () => {
    expect(parseCommandLine(['convert', '-o', 'out/app.yaml'])).toMatchObject({
      options: { layout: OutputLayout.SINGLE_FILE },
    });
    expect(parseCommandLine(['convert', '--single-file'])).toMatchObject({
      options: { layout: OutputLayout.SINGLE_FILE },
    });
  });

  test('labels with a prefix, and repeated --labels merge', () => {
    expect(parseCommandLine(['convert', '--labels', 'example.com/team=shop', '--labels', 'tier=web'])).toMatchObject({
      options: { labels: { 'example.com/team': 'shop', 'tier': 'web' } },
    });
  });
});

describe('--external', () => {
  test('SERVICE=HOST[:PORT], an IPv6 address in brackets, and --external-cidr', () => {
    expect(
      parseCommandLine([
        'convert',
        '--external',
        'db=db.example.com:6543',
        '--external',
        'cache=10.0.0.7',
        '--external=queue=[fd00::7]:5672',
        '--external-cidr',
        'db=10.9.0.0/16',
      ]),
    ).toMatchObject({
      options: {
        externals: {
          db: { host: 'db.example.com', port: 6543 },
          cache: { host: '10.0.0.7' },
          queue: { host: 'fd00::7', port: 5672 },
        },
        externalCidrs: { db: '10.9.0.0/16' },
      },
    });
  });

  test('a value that is not HOST[:PORT] is a usage error', () => {
    expect(() => parseCommandLine(['convert', '--external', 'db=a:b:c'])).toThrow(
      '--external db=a:b:c: "a:b:c" is not HOST[:PORT]',
    );
    expect(() => parseCommandLine(['convert', '--external', 'db'])).toThrow(
      '--external "db" is not SERVICE=HOST[:PORT]',
    );
  });
});

describe('bad usage', () => {
  test.each([
    [['frobnicate'], 'unknown command "frobnicate". Allowed: convert, analyze, verify, deploy, move-data'],
    [['-f', 'x.yaml'], 'expected a command before -f: convert, analyze, verify, deploy or move-data'],
    [['convert', '--bogus'], 'unknown option --bogus'],
    [['convert', '--namspace', 'x'], 'unknown option --namspace (did you mean --namespace?)'],
    [
      ['convert', '-namespace', 'x'],
      'unknown option -namespace: write long options with two dashes, short ones as one letter',
    ],
    [['convert', '-f'], '-f needs a value (FILE)'],
    [['convert', '-o', '--stdout'], '-o needs a value (DIR|FILE)'],
    [['convert', '--stdout=yes'], '--stdout takes no value'],
    [['convert', '--namespace', 'a', '--namespace', 'b'], '--namespace is given twice'],
    [
      ['convert', 'a.yaml', 'b.yaml'],
      'unexpected argument "b.yaml": give one compose file as an argument, or several with -f',
    ],
    [['analyze', 'a.yaml'], 'unexpected argument "a.yaml": give compose files with -f'],
    [['convert', '-f', '-'], '-f "-": give the path of a compose file (reading stdin is not supported)'],
    [
      ['convert', '--controller', 'daemonset'],
      '--controller "daemonset" is not supported. Allowed: deployment, statefulset',
    ],
    [['convert', '--target', 'cloud'], '--target "cloud" is not allowed. Allowed: container, vm, auto'],
    [
      ['convert', '--namespace', 'My_Shop'],
      '--namespace "My_Shop" is not a namespace name. Allowed: a DNS-1123 label (lower case letters, digits and "-", 1-63 characters)',
    ],
    [['convert', '--labels', 'team'], '--labels "team" is not K=V (write --labels k=v,k=v)'],
    [
      ['convert', '--labels', 'app=shop'],
      '--labels: "app" is set by cdk8s-compose (Service selectors and network policies use it). Fix: use another key',
    ],
    [
      ['convert', '--labels', 'network.cdk8s-compose.io/x=true'],
      '--labels: "network.cdk8s-compose.io/x" is set by cdk8s-compose (Service selectors and network policies use it). Fix: use another key',
    ],
    [
      ['convert', '--labels', 'team=a b'],
      '--labels: the value of "team" ("a b") is not a label value. Allowed: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
    ],
    [
      ['convert', '--annotations=-bad=x'],
      '--annotations: "-bad" is not a Kubernetes key. Allowed: an optional DNS prefix and "/", then 1-63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
    ],
    [['convert', '--labels', 'a=1', '--labels', 'a=2'], '--labels gives "a" twice'],
    [['convert', '--image', 'api'], '--image "api" is not SERVICE=REF'],
    [['convert', '--ingress-host', 'web='], '--ingress-host "web=" is not SERVICE=HOST'],
    [
      ['convert', '--ingress-host', 'web=Shop_Host'],
      '--ingress-host "web=Shop_Host": "Shop_Host" is not a host an Ingress takes. Allowed: a lower case DNS name such as "shop.example.com", optionally starting with "*."',
    ],
    [['convert', '--stdout', '-o', 'k8s'], '--stdout and -o exclude each other: --stdout writes nothing'],
    [['convert', '--image-base-url', 'ftp://x'], '--image-base-url "ftp://x" is not an http(s) URL'],
    [['convert', '--json'], "kompose's --json is not supported: the manifests are YAML"],
    [['convert', '--provider', 'openshift'], "kompose's --provider is not supported: the output is for Kubernetes"],
    [
      ['deploy', '--timeout', 'soon'],
      '--timeout "soon" is not a duration. Allowed: a positive number of seconds, or e.g. 300s, 5m, 1h',
    ],
    [['deploy', '-o', 'all.yaml'], 'deploy -o takes a folder, not a file: "all.yaml"'],
    [['analyze', '--stdout'], 'unknown option --stdout'],
  ])('%j', (argv, message) => {
    expect(usageError(argv)).toBe(message);
  });
});

test('deploy options', () => {
  expect(
    parseCommandLine(['deploy', '-f', 'compose.yaml', '--context', 'prod', '--timeout', '2m', '--dry-run']),
  ).toMatchObject({
    command: 'deploy',
    options: { files: ['compose.yaml'], context: 'prod', timeoutSeconds: 120, dryRun: true },
  });
  expect(parseCommandLine(['deploy'])).toMatchObject({ options: { timeoutSeconds: 300, dryRun: false } });
});

test('help: the program, each command, and --help anywhere', () => {
  expect(parseCommandLine([])).toEqual({ command: 'help', topic: undefined, debug: false });
  expect(parseCommandLine(['convert', '-f', 'x', '--help'])).toEqual({
    command: 'help',
    topic: 'convert',
    debug: false,
  });
  expect(parseCommandLine(['help', 'deploy'])).toEqual({ command: 'help', topic: 'deploy', debug: false });
  expect(parseCommandLine(['--debug', 'analyze'])).toMatchObject({ command: 'analyze', debug: true });
  for (const flag of [
    '--file',
    '--out, --output',
    '--namespace',
    '--controller',
    '--labels',
    '--annotations',
    '--stdout',
    '--profile',
    '--env-file',
    '--target',
    '--ingress-host',
    '--image',
    '--allow-outside-project',
    '--single-file',
    '--force',
  ]) {
    expect(helpText('convert')).toContain(flag);
  }
  expect(helpText()).toContain('convert   Convert a compose project');
});

describe("the options for the opinionated parts, named as ComposeApp's props", () => {
  /** Each flag and the ComposeApp prop it sets: the flag is the prop's name in kebab case. */
  const FLAGS: Readonly<Record<string, string>> = {
    'network-policies': 'networkPolicies',
    'ingress-controller-namespace': 'ingressControllerNamespace',
    'ingress-controller-pod-labels': 'ingressControllerPodLabels',
    'ingress-class-name': 'ingressClassName',
    'storage-class-name': 'storageClassName',
    'backup': 'backup',
    'quota': 'quota',
    'shared-volumes': 'sharedVolumes',
    'copy-up': 'copyUp',
  };

  test("each flag is its prop's name in kebab case, and is in every command's help", () => {
    for (const [flag, prop] of Object.entries(FLAGS)) {
      expect(prop.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)).toBe(flag);
      for (const command of ['convert', 'analyze', 'deploy']) {
        expect(helpText(command)).toContain(`--${flag} `);
      }
    }
  });

  test('the defaults: policies and quota on, backup and the rest left to ComposeApp', () => {
    expect(parseCommandLine(['convert'])).toMatchObject({
      options: {
        networkPolicies: true,
        ingressControllerNamespace: undefined,
        ingressControllerPodLabels: {},
        ingressClassName: undefined,
        storageClassName: undefined,
        backup: undefined,
        quota: true,
      },
    });
  });

  test('every flag given', () => {
    const parsed = parseCommandLine([
      'analyze',
      '--network-policies',
      'off',
      '--ingress-controller-namespace',
      'traefik',
      '--ingress-controller-pod-labels',
      'app.kubernetes.io/name=traefik',
      '--ingress-class-name',
      'traefik',
      '--storage-class-name',
      'fast-ssd',
      '--backup',
      'on',
      '--quota',
      'limits.memory=16Gi,requests.cpu=500m,persistentvolumeclaims=8',
    ]);
    expect(parsed).toMatchObject({
      options: {
        networkPolicies: false,
        ingressControllerNamespace: 'traefik',
        ingressControllerPodLabels: { 'app.kubernetes.io/name': 'traefik' },
        ingressClassName: 'traefik',
        storageClassName: 'fast-ssd',
        backup: true,
        quota: { 'limits.memory': '16Gi', 'requests.cpu': '500m', 'persistentvolumeclaims': '8' },
      },
    });
    expect(parseCommandLine(['convert', '--quota', 'off', '--backup', 'off', '--network-policies=on'])).toMatchObject({
      options: { quota: false, backup: false, networkPolicies: true },
    });
  });

  test('bad values are usage errors that say what is allowed', () => {
    expect(usageError(['convert', '--network-policies', 'maybe'])).toBe(
      '--network-policies "maybe" is not allowed. Allowed: on, off',
    );
    expect(usageError(['convert', '--backup', 'daily'])).toBe('--backup "daily" is not allowed. Allowed: on, off');
    expect(usageError(['convert', '--quota', '16Gi'])).toBe(
      '--quota "16Gi" is not allowed. Allowed: on, off, or KEY=AMOUNT,… with the keys ' +
        'requests.cpu, requests.memory, limits.cpu, limits.memory, persistentvolumeclaims',
    );
    expect(usageError(['convert', '--quota', 'memory=16Gi'])).toBe(
      '--quota "memory=16Gi": unknown key. Allowed: requests.cpu, requests.memory, ' +
        'limits.cpu, limits.memory, persistentvolumeclaims (as KEY=AMOUNT, comma-separated), or on, off',
    );
    expect(usageError(['convert', '--quota', 'limits.memory=lots'])).toBe(
      '--quota limits.memory="lots" is not an amount. Allowed: a memory size above 0, e.g. 16Gi or 512Mi',
    );
    expect(usageError(['convert', '--quota', 'limits.memory=16g'])).toBe(
      '--quota limits.memory="16g" is not an amount. Allowed: a memory size above 0, e.g. 16Gi or 512Mi',
    );
    expect(usageError(['convert', '--quota', 'limits.cpu=0'])).toBe(
      '--quota limits.cpu="0" is not an amount. Allowed: cores or millicores above 0, e.g. 4, 1.5 or 500m',
    );
    expect(usageError(['convert', '--ingress-controller-namespace', 'Ingress_Nginx'])).toMatch(
      /^--ingress-controller-namespace "Ingress_Nginx" is not a namespace name/,
    );
    expect(usageError(['convert', '--ingress-controller-pod-labels', 'app=a b'])).toMatch(
      /^--ingress-controller-pod-labels: the value of "app" \("a b"\) is not a label value/,
    );
    expect(usageError(['convert', '--storage-class-name', 'Fast SSD'])).toMatch(
      /^--storage-class-name "Fast SSD" is not a class name/,
    );
    expect(usageError(['convert', '--shared-volumes', 'anywhere'])).toBe(
      '--shared-volumes "anywhere" is not allowed. Allowed: node, rwx',
    );
    expect(usageError(['convert', '--volume-size', 'data=lots'])).toBe(
      '--volume-size "data=lots": "lots" is not a size. Allowed: a positive Kubernetes quantity such as "512Mi", "10Gi" or "1Ti"',
    );
    expect(usageError(['convert', '--volume-size', 'data'])).toBe('--volume-size "data" is not NAME=SIZE');
    expect(usageError(['convert', '--copy-up', 'later'])).toBe('--copy-up "later" is not allowed. Allowed: on, off');
  });

  test('the data options: --volume-size by volume or bound folder, --shared-volumes, --copy-up', () => {
    expect(
      parseCommandLine([
        'convert',
        '--volume-size',
        'data=20Gi',
        '--volume-size',
        './library=1Ti',
        '--shared-volumes',
        'rwx',
        '--copy-up',
        'off',
      ]),
    ).toMatchObject({
      options: {
        volumeSizes: { 'data': 20 * 1024 ** 2, './library': 1024 ** 3 },
        sharedVolumes: 'ReadWriteMany',
        copyUp: false,
      },
    });
    expect(parseCommandLine(['convert', '--shared-volumes', 'node'])).toMatchObject({
      options: { volumeSizes: {}, sharedVolumes: 'SameNode', copyUp: undefined },
    });
  });
});

test('the option parser, help and usage errors load neither the construct libraries nor the loader', () => {
  const heavyModules = ['cdk8s', 'cdk8s-plus-27', 'constructs', 'yaml'];
  jest.isolateModules(() => {
    for (const heavy of heavyModules) {
      jest.doMock(heavy, () => {
        throw new Error(`${heavy} was loaded`);
      });
    }
    const { main } = require('../../../lib/cli/main') as typeof import('../../../lib/cli/main');
    const out: string[] = [];
    const io = { stdout: (text: string) => out.push(text), stderr: (text: string) => out.push(text) };
    expect(main(['--help'], io as never)).toBe(0);
    expect(main(['convert', '--target', 'vm', '--controller', 'statefulset', '--no-such-flag'], io as never)).toBe(2);
    expect(out.join('')).toContain('--no-such-flag');
    expect(out.join('')).not.toContain('was loaded');
  });
  heavyModules.forEach((heavy) => jest.dontMock(heavy));
});
