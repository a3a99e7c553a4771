import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { expectManifestsPass } from '../support/checks';
import { checkSafety } from '../support/safety-rules';
import { findDoc, findDocs } from '../support/yaml-docs';
import {
  CliRun,
  expectBuilt,
  inParallel,
  listFiles,
  manifestFiles,
  removeTempDirs,
  runCli,
  tempDir,
  yamllintProblems,
} from './run-cli';

/**
 * `--target auto|vm`: a service that needs a VM runs in a golden-image VM beside the containers. The CLI writes the
 * VM wave, the golden image bundle (vouched for by its ledger), and the runbook's VM section.
 */

const IMAGES = 'https://images.example.com/vm';
/** A hybrid conversion with labels and annotations, run twice: the second run over the first one's output. */
const AUTO_WITH_METADATA = [
  'convert',
  '--target',
  'auto',
  '--image-base-url',
  IMAGES,
  '-o',
  'k8s',
  '--labels',
  'team=shop',
  '--annotations',
  'owner=ops',
];

/** A web front end, a database, and an agent that drives the Docker engine, which assessment sends to the VM. */
function hybridProject(): string {
  const dir = path.join(tempDir('vm'), 'shop');
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(dir, 'compose.yaml'),
    [
      'services:',
      '  web:',
      '    image: nginx:1.27.2',
      '    ports: ["8080:80"]',
      '    depends_on: [db]',
      '  db:',
      '    image: postgres:16.4',
      '    environment:',
      '      POSTGRES_PASSWORD: ${DB_PASSWORD:-pw-7c1d93}',
      '  agent:',
      '    image: portainer/agent:2.21.4',
      '    ports: ["9001:9001"]',
      '    environment:',
      '      AGENT_SECRET: agent-secret-51f0c2',
      '    volumes:',
      '      - /var/run/docker.sock:/var/run/docker.sock',
      '',
    ].join('\n'),
  );
  return dir;
}

function smallProject(): string {
  const dir = path.join(tempDir('vm'), 'legacy');
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(dir, 'compose.yaml'),
    'services:\n  app:\n    image: nginx:1.27.2\n    ports: ["8080:80"]\n',
  );
  return dir;
}

const runs: Record<string, CliRun & { cwd: string }> = {};

beforeAll(async () => {
  expectBuilt();
  const tasks: [string, string, string[]][] = [
    ['auto', hybridProject(), AUTO_WITH_METADATA],
    ['analyze', hybridProject(), ['analyze', '--json', '--target', 'auto', '--image-base-url', IMAGES]],
    ['vm', smallProject(), ['convert', '--target', 'vm', '--image-base-url', `${IMAGES}/`, '-o', 'k8s']],
    ['noUrl', smallProject(), ['convert', '--target', 'vm']],
    ['stdout', smallProject(), ['convert', '--target', 'vm', '--image-base-url', IMAGES, '--stdout']],
  ];
  await inParallel(tasks, 2, async ([name, cwd, args]) => {
    runs[name] = { ...(await runCli(args, { cwd })), cwd };
  });
  // A second run over the first one's output: the bundle files are the tool's by the ledger.
  runs.again = {
    ...(await runCli(AUTO_WITH_METADATA, { cwd: runs.auto.cwd })),
    cwd: runs.auto.cwd,
  };
}, 120_000);

afterAll(removeTempDirs);

const out = (name: string) => path.join(runs[name].cwd, 'k8s');

describe('--target auto', () => {
  test('the flagged service goes to a VM in its own wave; the rest stay containers', () => {
    expect(runs.auto.code).toBe(0);
    const files = manifestFiles(out('auto'));
    const waves = (kind: string, name: string) =>
      files.find((f) => f.docs[0].kind === kind && f.docs[0].metadata.name === name)!.file.split('/')[0];
    expect([...new Set(files.map((f) => f.file.split('/')[0]))]).toEqual([
      '0-namespace',
      '1-stateful',
      '2-app',
      '3-vm',
    ]);
    expect(waves('VirtualMachine', 'shop-vm')).toBe('3-vm');
    expect(waves('DataVolume', 'shop-vm-rootdisk')).toBe('3-vm');
    expect(waves('Service', 'agent')).toBe('3-vm');
    expect(waves('Deployment', 'web')).toBe('2-app');
    expect(waves('Deployment', 'db')).toBe('1-stateful');
    const docs = files.flatMap((f) => f.docs);
    expect(findDoc(docs, 'DataVolume', 'shop-vm-rootdisk').spec.source.http.url).toBe(`${IMAGES}/shop-vm.qcow2`);
    expect(
      findDocs(docs, 'Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(['db', 'web']);
    // --labels and --annotations reach the VM's template too (the VM's pod carries them).
    const vm = findDoc(docs, 'VirtualMachine', 'shop-vm');
    expect(vm.metadata.labels).toMatchObject({ team: 'shop' });
    expect(vm.spec.template.metadata).toEqual({
      labels: { 'kubevirt.io/vm': 'shop-vm', 'network.cdk8s-compose.io/default': 'true', 'team': 'shop' },
      annotations: { owner: 'ops' },
    });
    expectManifestsPass(docs, {
      texts: [{ name: 'RUNBOOK.md', content: fs.readFileSync(path.join(out('auto'), 'RUNBOOK.md'), 'utf-8') }],
    });
    expect(runs.auto.stderr).toContain(
      'warning: compose.yaml:11:5: services.agent: service "agent" runs in the VM "shop-vm": ' +
        'services.agent.volumes: mounts the Docker socket /var/run/docker.sock: the service drives a Docker engine, which a pod does not have\n',
    );
    expect(runs.auto.stderr.trimEnd().split('\n').slice(-1)[0]).toMatch(
      /^wrote \d+ files into k8s: 0-namespace\/ \(\d+\), 1-stateful\/ \(\d+\), 2-app\/ \(\d+\), 3-vm\/ \(\d+\), kustomization\.yaml, golden-image\/shop-vm\/ \(\d+\), RUNBOOK\.md$/,
    );
  });

  test('the golden image bundle is written with a ledger of every file and its hash; a re-run overwrites it', () => {
    const bundle = listFiles(out('auto')).filter((f) => f.startsWith('golden-image/'));
    expect(bundle).toEqual(
      expect.arrayContaining([
        'golden-image/.cdk8s-compose-files',
        'golden-image/shop-vm/packer.json',
        'golden-image/shop-vm/app/compose.yaml',
        'golden-image/shop-vm/systemd/shop-vm.service',
      ]),
    );
    const ledger = fs
      .readFileSync(path.join(out('auto'), 'golden-image', '.cdk8s-compose-files'), 'utf-8')
      .trimEnd()
      .split('\n');
    expect(ledger[0]).toBe('# Generated by cdk8s-compose. Do not edit.');
    expect(ledger.slice(1)).toEqual(
      bundle
        .filter((f) => !f.endsWith('.cdk8s-compose-files'))
        .map(
          (f) =>
            `${createHash('sha256')
              .update(fs.readFileSync(path.join(out('auto'), f)))
              .digest('hex')}  ${f}`,
        ),
    );
    expect(runs.again.code).toBe(0);
    expect(runs.again.stderr).not.toContain('foreign-file');
  });

  test("the runbook deploys the VM last and holds the VM's operations", () => {
    const runbook = fs.readFileSync(path.join(out('auto'), 'RUNBOOK.md'), 'utf-8');
    const commands = runbook
      .split('\n')
      .filter((l) => /^\s*(kubectl|virtctl|packer|qemu-img|curl) /.test(l))
      .map((l) => l.trim());
    const deployStart = commands.indexOf('kubectl apply -f 0-namespace/shop-namespace.yaml');
    const deploy = commands
      .slice(deployStart, commands.indexOf('kubectl get pods -n shop'))
      .filter((c) => c.startsWith('kubectl apply -f '));
    expect(deploy).toEqual([
      'kubectl apply -f 0-namespace/shop-namespace.yaml',
      'kubectl apply -f 0-namespace/',
      'kubectl apply -f 1-stateful/',
      'kubectl apply -f 2-app/',
      'kubectl apply -f 3-vm/',
    ]);
    // The agent's secret reaches the VM through its Secret, by name only here.
    expect(runbook).toContain('`AGENT_SECRET`');
    expect(runbook).not.toContain('agent-secret-51f0c2');
    expect(commands).toEqual(
      expect.arrayContaining([
        'kubectl wait --for=condition=Ready vm/shop-vm -n shop --timeout=300s',
        'kubectl apply -f https://github.com/kubevirt/kubevirt/releases/download/v0.59.0/kubevirt-operator.yaml',
        'kubectl -n kubevirt wait kv kubevirt --for condition=Available --timeout=300s',
        'packer build -var "ssh_password=$PACKER_SSH_PASSWORD" packer.json',
        `curl -fsSI ${IMAGES}/shop-vm.qcow2`,
        'kubectl get vmi -n shop',
        'virtctl start shop-vm -n shop',
        'virtctl stop shop-vm -n shop',
        'virtctl restart shop-vm -n shop',
        'virtctl console shop-vm -n shop',
        'virtctl vnc shop-vm -n shop',
        // KubeVirt v0.59.0's shapes of the spec's snapshot, export and metrics.
        "kubectl apply -n shop -f - <<'EOF'",
        'kubectl get vmsnapshot -n shop',
        'kubectl get vm shop-vm -n shop -o yaml > shop-vm.yaml',
        'virtctl vmexport create shop-vm-export --vm=shop-vm -n shop',
        'kubectl port-forward service/virt-export-shop-vm-export 8443:443 -n shop &',
        'virtctl vmexport delete shop-vm-export -n shop',
        'kubectl apply -f 3-vm/shop-vm-virtualmachine.yaml',
        'kubectl delete vm shop-vm -n shop',
        'kubectl top pod -l vm.kubevirt.io/name=shop-vm -n shop',
        'virtctl ssh ops@vm/shop-vm -n shop --identity-file=<PRIVATE_KEY_FILE>',
      ]),
    );
    expect(runbook).toContain(
      'kind: VirtualMachineSnapshot\nmetadata:\n  name: shop-vm-<SNAPSHOT_NAME>\n  namespace: shop\n',
    );
    expect(runbook).toMatch(/--command='journalctl -u shop-vm\.service --no-pager -n 200'/);
    expect(commands.filter((c) => /virtctl (snapshot|export) /.test(c) || c.includes('metrics.kubevirt.io'))).toEqual(
      [],
    );
    // KubeVirt, CDI and the image come before the deploy.
    expect(
      commands.indexOf('kubectl -n kubevirt wait kv kubevirt --for condition=Available --timeout=300s'),
    ).toBeLessThan(deployStart);
    expect(commands.indexOf(`curl -fsSI ${IMAGES}/shop-vm.qcow2`)).toBeLessThan(deployStart);
    expect(commands.indexOf('kubectl apply -f 3-vm/')).toBeLessThan(
      commands.indexOf('kubectl wait --for=condition=Ready vm/shop-vm -n shop --timeout=300s'),
    );
    expect(runbook).toContain(
      '  subgraph wave_3_vm ["3-vm: VM shop-vm"]\n    svc_agent[/"agent<br/>compose in the VM"/]\n  end\n',
    );
    const docs = manifestFiles(out('auto')).flatMap((f) => f.docs);
    expect(checkSafety(docs, { texts: [{ name: 'RUNBOOK.md', content: runbook }] }).problems).toEqual([]);
  });

  test('analyze shows the VM service with its reasons', () => {
    expect(runs.analyze.code).toBe(0);
    const agent = JSON.parse(runs.analyze.stdout).services.find((s: any) => s.service === 'agent');
    expect(agent).toMatchObject({
      target: 'vm',
      reasons: [
        'services.agent.volumes: mounts the Docker socket /var/run/docker.sock: the service drives a Docker engine, which a pod does not have',
      ],
      workload: 'VirtualMachine shop-vm',
      exposure: {
        internal: 'agent',
        external: [{ via: 'LoadBalancer', port: 9001, targetPort: 9001, protocol: 'tcp', host: null, path: null }],
      },
      volumes: [
        {
          type: 'bind',
          source: '/var/run/docker.sock',
          target: '/var/run/docker.sock',
          becomes: 'kept by the compose project in the VM shop-vm',
        },
      ],
    });
  });
});

test('--target vm runs every service in the VM: the namespace wave and the VM wave', () => {
  expect(runs.vm.code).toBe(0);
  expect([...new Set(listFiles(out('vm')).map((f) => f.split('/')[0]))]).toEqual([
    '0-namespace',
    '3-vm',
    'RUNBOOK.md',
    'golden-image',
    'kustomization.yaml',
  ]);
  expect(yamllintProblems([out('vm')])).toEqual([]);
});

test('a VM needs --image-base-url', () => {
  expect(runs.noUrl.code).toBe(2);
  expect(runs.noUrl.stderr.split('\n')[0]).toBe(
    'error: app runs in a VM (app: --target vm), whose golden image needs a home: pass ' +
      '--image-base-url URL, the folder URL where you will publish the image (RUNBOOK.md shows how to build and publish it)',
  );
});

test("--stdout prints the VM's manifests and says that the bundle is not printed", () => {
  expect(runs.stdout.code).toBe(0);
  expect(runs.stdout.stdout).toContain('kind: VirtualMachine\n');
  expect(runs.stdout.stderr).toMatch(
    /\nwarning: compose\.yaml: the golden image bundle of the VM \(\d+ files under golden-image\/\) is not printed: convert -o DIR writes it\n/,
  );
});
