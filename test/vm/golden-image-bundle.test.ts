import * as fs from 'fs';
import * as path from 'path';
import { App, Chart, Size, Testing } from 'cdk8s';
import { Construct } from 'constructs';
import { loadCompose } from '../../lib/compose/load';
import { ComposeModel } from '../../lib/compose/model';
import { DEFAULT_SENSITIVE_NAME_PATTERNS, hasEmbeddedPassword, isSensitiveName } from '../../lib/compose/sensitive';
import { GoldenImageBundle, GoldenImageBundleProps } from '../../lib/vm/golden-image-bundle';
import { QemuAccelerator } from '../../lib/vm/golden-image-files';
import { InstallerIso } from '../../lib/vm/installer-iso';
import { ToolResult, composeConfig, listFiles, packerValidate, shellSyntax, systemdVerify, tempDir } from './tools';
import { CORPUS_DIR as CORPUS } from '../support/shared';

const FIXTURE = path.join(__dirname, 'fixtures/legacy');
/** Corpus apps that assessment sends to a VM, built whole. */
const CORPUS_APPS = ['mailcow', 'plex', 'portainer', 'wireguard'];

function loadFixture(): ComposeModel {
  return loadCompose({ workingDir: FIXTURE, env: {} }).model;
}

function bundleIn(scope: Construct, id: string, props: Partial<GoldenImageBundleProps> = {}): GoldenImageBundle {
  return new GoldenImageBundle(scope, id, { model: loadFixture(), services: ['agent', 'app'], ...props });
}

/** Writes the bundles of a fresh app into a fresh folder; returns the folder and the written paths. */
function writeAll(build: (chart: Chart) => void): { outdir: string; written: string[] } {
  const outdir = tempDir('out');
  const app = new App({ outdir });
  build(new Chart(app, 'vm'));
  return { outdir, written: GoldenImageBundle.synthesizeAll(app) };
}

function readTree(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf-8')]));
}

/** Every bundle the real-tool checks run on: the fixture's VM subset and the corpus apps assessed as VMs. */
const BUILT: GoldenImageBundle[] = [];
const written = writeAll((chart) => {
  BUILT.push(bundleIn(chart, 'legacy'));
  for (const dir of CORPUS_APPS) {
    BUILT.push(
      GoldenImageBundle.fromComposeFile(chart, dir, path.join(CORPUS, dir, 'compose.yaml'), { load: { env: {} } }),
    );
  }
});
const BUNDLES = BUILT.map((bundle) => {
  const dir = path.join(written.outdir, 'golden-image', bundle.name);
  return { name: bundle.name, bundle, dir, files: readTree(dir) };
});
/** docker-compose 1.29 is slow to start: it checks the fixture and the largest corpus file. */
const COMPOSE_CHECKED = ['legacy', 'mailcow'];
/** docker-compose 1.29 predates non-swarm configs; compose v2 applies them. */
const CONFIGS_NOTICE = /^Some services \(\w+\) use the 'configs' key, which will be ignored\..*\n/m;

/** A copy of a bundle's app folder with the operator's secret files in place; and the .env values. */
function operatorCopy(bundle: GoldenImageBundle, dir: string): { app: string; env: Record<string, string> } {
  const app = tempDir(`app-${bundle.name}`);
  fs.cpSync(path.join(dir, 'app'), app, { recursive: true });
  for (const input of bundle.operatorInputs.filter((i) => i.kind === 'file')) {
    fs.mkdirSync(path.dirname(path.join(app, input.name)), { recursive: true });
    fs.writeFileSync(path.join(app, input.name), 'operator-file\n');
  }
  return { app, env: Object.fromEntries(Object.keys(bundle.subset.secretEnv).map((k) => [k, 'operator-value'])) };
}

const checks = new Map<string, Promise<ToolResult>>();
beforeAll(async () => {
  for (const { name, bundle, dir, files } of BUNDLES) {
    checks.set(`packer ${name}`, packerValidate(dir));
    checks.set(`systemd ${name}`, systemdVerify(`${name}.service`, files[`systemd/${name}.service`], `/opt/${name}`));
    for (const script of ['scripts/install-runtime.sh', 'scripts/cleanup.sh', 'scripts/load-secrets.sh']) {
      checks.set(`sh ${name} ${script}`, shellSyntax(files[script]));
    }
    if (COMPOSE_CHECKED.includes(name)) {
      const copy = operatorCopy(bundle, dir);
      checks.set(`compose ${name}`, composeConfig(copy.app, copy.env));
    }
  }
  checks.set('compose legacy without .env', composeConfig(operatorCopy(BUILT[0], BUNDLES[0].dir).app, {}));
  await Promise.all(checks.values());
});

async function check(key: string): Promise<ToolResult> {
  const result = await checks.get(key);
  if (!result) {
    throw new Error(`no check ${key}`);
  }
  return result;
}

describe('GoldenImageBundle', () => {
  test('writes the bundle files under golden-image/<name>/', () => {
    expect(written.written.filter((f) => f.startsWith('golden-image/legacy/'))).toEqual([
      'golden-image/legacy/README.md',
      'golden-image/legacy/app/.env.example',
      'golden-image/legacy/app/compose.yaml',
      'golden-image/legacy/app/conf/app.ini',
      'golden-image/legacy/app/configs/app_config',
      'golden-image/legacy/http/preseed.cfg',
      'golden-image/legacy/packer.json',
      'golden-image/legacy/scripts/cleanup.sh',
      'golden-image/legacy/scripts/install-runtime.sh',
      'golden-image/legacy/scripts/load-secrets.sh',
      'golden-image/legacy/systemd/docker-app-data.conf',
      'golden-image/legacy/systemd/legacy.service',
    ]);
  });

  test('the legacy bundle (snapshot)', () => {
    expect(BUNDLES[0].files).toMatchSnapshot();
  });

  test('the Packer template: a qemu builder with every key, ssh_password a user variable, shell provisioners', () => {
    const template = JSON.parse(BUNDLES[0].files['packer.json']);
    expect(template.variables).toEqual({ ssh_password: null });
    expect(template['sensitive-variables']).toEqual(['ssh_password']);
    const [builder] = template.builders;
    expect(builder).toMatchObject({
      type: 'qemu',
      iso_url: 'https://cdimage.debian.org/cdimage/archive/12.0.0/amd64/iso-cd/debian-12.0.0-amd64-netinst.iso',
      iso_checksum: 'sha256:3b0e9718e3653435f20d8c2124de6d363a51a1fd7f911b9ca0c6db6b3d30d53e',
      output_directory: 'output',
      vm_name: 'legacy.qcow2',
      disk_size: '20G',
      memory: 2048,
      cpus: 2,
      format: 'qcow2',
      headless: true,
      accelerator: 'kvm',
      ssh_username: 'packer',
      ssh_password: '{{user `ssh_password`}}',
      ssh_timeout: '30m',
    });
    expect(builder.shutdown_command).toContain('shutdown -P now');
    const shells = template.provisioners.filter((p: any) => p.type === 'shell');
    expect(shells.map((p: any) => p.script ?? 'inline')).toEqual([
      'scripts/install-runtime.sh',
      'inline',
      'scripts/cleanup.sh',
    ]);
    const inline: string[] = shells[1].inline;
    expect(inline).toEqual(
      expect.arrayContaining([
        'cp -R /tmp/app/. /opt/legacy/',
        'install -m 0644 /tmp/legacy.service /etc/systemd/system/legacy.service',
        'systemctl enable legacy.service',
        'install -d -m 0755 /opt/legacy/html',
        'docker pull registry.example.com/legacy/agent:1.0',
        'docker pull registry.example.com/legacy/app:2.4',
      ]),
    );
    expect(BUNDLES[0].files['scripts/install-runtime.sh']).toContain(
      'apt-get install -y docker-ce docker-ce-cli containerd.io docker-compose-plugin',
    );
  });

  test('the systemd unit', () => {
    expect(BUNDLES[0].files['systemd/legacy.service']).toBe(
      [
        '[Unit]',
        'Description=Compose app legacy (generated by cdk8s-compose)',
        'Requires=docker.service',
        'After=docker.service network-online.target cloud-init.service',
        'Wants=network-online.target',
        '',
        '[Service]',
        'Type=oneshot',
        'RemainAfterExit=yes',
        'WorkingDirectory=/opt/legacy',
        'ExecStartPre=/bin/bash /usr/local/lib/cdk8s-compose/legacy-load-secrets.sh',
        'ExecStart=/usr/bin/docker compose up -d',
        'ExecStop=/usr/bin/docker compose down',
        'TimeoutStartSec=15min',
        '',
        '[Install]',
        'WantedBy=multi-user.target',
        '',
      ].join('\n'),
    );
  });

  test('no secret value is written anywhere in any bundle', () => {
    // The .env also holds the values of plain ${VAR} references (a time zone, a host name): not secret, not counted.
    const secrets = BUILT.flatMap((b) => [
      ...Object.entries(b.subset.secretEnv)
        .filter(([name, value]) => isSensitiveName(name, DEFAULT_SENSITIVE_NAME_PATTERNS) || hasEmbeddedPassword(value))
        .map(([, value]) => value),
      ...Object.values(b.subset.secretFiles).map((f) => f.text.trim()),
    ]);
    const meaningful = secrets.filter((s) => s.length >= 4);
    expect(meaningful).toEqual(
      expect.arrayContaining([
        'postgres://app:s3cr3t-db-pass@db:5432/app',
        'tok-9f8e7d6c5b4a',
        'fixture-db-password-7c1d',
      ]),
    );
    for (const bundle of BUNDLES) {
      for (const [file, content] of Object.entries(bundle.files)) {
        for (const secret of meaningful) {
          if (content.includes(secret)) {
            throw new Error(`golden-image/${bundle.name}/${file} holds a secret value`);
          }
        }
      }
    }
    expect(BUNDLES[0].files['app/.env.example']).toContain('\nAPI_TOKEN=\n');
  });

  test('is byte-stable: the same input gives the same bytes, whatever the order of the services', () => {
    const again = writeAll((chart) => bundleIn(chart, 'legacy', { services: ['app', 'agent', 'app'] }));
    expect(readTree(path.join(again.outdir, 'golden-image/legacy'))).toEqual(BUNDLES[0].files);
  });

  test('synthesizeAll replaces what an earlier run left and returns the written paths', () => {
    const outdir = tempDir('out');
    fs.mkdirSync(path.join(outdir, 'golden-image/stale'), { recursive: true });
    fs.writeFileSync(path.join(outdir, 'golden-image/stale/packer.json'), '{}');
    fs.writeFileSync(path.join(outdir, 'app.k8s.yaml'), 'kept\n');
    const app = new App({ outdir });
    bundleIn(new Chart(app, 'c'), 'legacy', { name: 'shop' });
    const paths = GoldenImageBundle.synthesizeAll(app);
    expect(fs.existsSync(path.join(outdir, 'golden-image/stale'))).toBe(false);
    expect(fs.readFileSync(path.join(outdir, 'app.k8s.yaml'), 'utf-8')).toBe('kept\n');
    expect(paths).toContain('golden-image/shop/packer.json');
    expect(listFiles(path.join(outdir, 'golden-image')).map((f) => `golden-image/${f}`)).toEqual(paths);
  });

  test('waitFor: the unit waits for services outside the VM; an unusable wait is an error', () => {
    const chart = Testing.chart();
    const bundle = bundleIn(chart, 'w', {
      name: 'waits',
      services: ['app'],
      waitFor: { db: { host: 'legacy-db', port: 5432, timeoutSeconds: 120 } },
    });
    const unit = bundle
      .files()
      .find((f) => f.path === 'systemd/waits.service')!
      .content.toString();
    expect(unit).toContain(
      "ExecStartPre=/bin/bash -c 'for i in $$(seq 1 60); do (exec 3<>/dev/tcp/legacy-db/5432) 2>/dev/null && exit 0;",
    );
    expect(bundle.warnings.filter((w) => w.code === 'vm-dependency-outside').map((w) => w.message)).toEqual([
      '"agent" runs outside the VM: it is reached through its Service, and start order is not enforced',
      '"db" runs outside the VM: it is reached through its Service, and the app\'s unit waits until legacy-db:5432 accepts connections before it starts the app',
    ]);
    expect(() =>
      bundleIn(Testing.chart(), 'bad', {
        services: ['app'],
        waitFor: { db: { host: 'Legacy DB', port: 5432, timeoutSeconds: 120 } },
      }),
    ).toThrow(
      'the wait for service "db" is not usable (got "Legacy DB:5432 within 120 s"). ' +
        'Allowed: a DNS name, a port 1-65535 and a whole number of seconds, 1 or more.',
    );
  });

  test('options reach the template', () => {
    const chart = Testing.chart();
    const bundle = bundleIn(chart, 'b', {
      name: 'shop',
      iso: InstallerIso.debian(
        'https://mirror.example.com/debian-12.5.0-amd64-netinst.iso',
        'sha256:' + 'a'.repeat(64),
      ),
      diskSize: Size.mebibytes(30 * 1024 + 1),
      memory: Size.mebibytes(4096),
      cpus: 4,
      sshUsername: 'builder',
      accelerator: QemuAccelerator.TCG,
      headless: false,
      appDirectory: '/srv/shop',
    });
    const template = JSON.parse(
      bundle
        .files()
        .find((f) => f.path === 'packer.json')!
        .content.toString(),
    );
    expect(template.builders[0]).toMatchObject({
      iso_url: 'https://mirror.example.com/debian-12.5.0-amd64-netinst.iso',
      iso_checksum: `sha256:${'a'.repeat(64)}`,
      disk_size: '31G',
      memory: 4096,
      cpus: 4,
      ssh_username: 'builder',
      accelerator: 'tcg',
      headless: false,
      vm_name: 'shop.qcow2',
    });
    expect(bundle.imageFile).toBe('shop.qcow2');
    expect(bundle.diskSize.toGibibytes()).toBe(31);
    expect(template.provisioners.find((p: any) => p.inline).inline[0]).toBe('install -d -m 0755 /srv/shop');
  });

  describe('real-tool checks', () => {
    test.each(BUNDLES.map((b) => b.name))('packer validate accepts the %s template', async (name) => {
      const result = await check(`packer ${name}`);
      expect(result.output).toBe('');
      expect(result.ok).toBe(true);
    });

    test.each(BUNDLES.map((b) => b.name))('systemd-analyze verify accepts the %s unit', async (name) => {
      const result = await check(`systemd ${name}`);
      expect(result.output).toBe('');
      expect(result.ok).toBe(true);
    });

    test.each(BUNDLES.map((b) => b.name))('sh -n accepts the %s scripts', async (name) => {
      expect((await check(`sh ${name} scripts/install-runtime.sh`)).ok).toBe(true);
      expect((await check(`sh ${name} scripts/cleanup.sh`)).ok).toBe(true);
      expect((await check(`sh ${name} scripts/load-secrets.sh`)).ok).toBe(true);
    });

    test.each(COMPOSE_CHECKED)(
      "docker-compose config accepts the %s compose file with the operator's inputs",
      async (name) => {
        const result = await check(`compose ${name}`);
        expect(result.output.replace(CONFIGS_NOTICE, '')).toBe('');
        expect(result.ok).toBe(true);
      },
    );

    test("docker compose refuses to start without the operator's .env, naming the variable and the file", async () => {
      const result = await check('compose legacy without .env');
      expect(result.ok).toBe(false);
      expect(result.output).toContain('set API_TOKEN in /opt/legacy/.env');
    });
  });

  describe('fails when', () => {
    test('two bundles have the same name', () => {
      const app = new App({ outdir: tempDir('out') });
      const chart = new Chart(app, 'c');
      bundleIn(chart, 'a', { name: 'shop' });
      bundleIn(chart, 'b', { name: 'shop' });
      expect(() => GoldenImageBundle.synthesizeAll(app)).toThrow(
        'two golden image bundles are named "shop". Allowed: one bundle per name. Fix: give one of c/a and c/b another name.',
      );
    });

    test('the name is not usable', () => {
      expect(() => bundleIn(Testing.chart(), 'b', { name: 'My Shop' })).toThrow(
        'the golden image bundle name is not usable as a folder and unit name (got "My Shop")',
      );
    });

    test('the ISO checksum is not a SHA-256', () => {
      expect(() => InstallerIso.debian('https://example.com/x.iso', 'md5:abc')).toThrow(
        'the installer ISO checksum is not a SHA-256 (got "md5:abc"). Allowed: 64 hexadecimal digits.',
      );
    });

    test('the app folder is not a plain absolute path', () => {
      expect(() => bundleIn(Testing.chart(), 'b', { appDirectory: 'opt/shop' })).toThrow(
        'the app folder is not a plain absolute path (got "opt/shop")',
      );
    });

    test('synthesizeAll gets no output folder outside an App', () => {
      const root = new Construct(undefined as never, '');
      bundleIn(root, 'b');
      expect(() => GoldenImageBundle.synthesizeAll(root)).toThrow(
        'the output folder of the golden image bundles is unknown',
      );
    });
  });
});
