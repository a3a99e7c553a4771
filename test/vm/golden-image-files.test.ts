import { execFile } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import {
  GoldenImageBuild,
  QemuAccelerator,
  cleanupScript,
  installRuntimeScript,
  loadSecretsScript,
  packerTemplate,
  preseed,
  systemdUnit,
  unitPath,
} from '../../lib/vm/golden-image-files';
import { InstallerIso } from '../../lib/vm/installer-iso';
import { ToolResult, packerValidate, shellSyntax, systemdVerify, tempDir } from './tools';

const BUILD: GoldenImageBuild = {
  name: 'shop',
  appDirectory: '/opt/shop',
  iso: InstallerIso.debian12(),
  diskSizeGib: 20,
  memoryMib: 2048,
  cpus: 2,
  sshUsername: 'packer',
  accelerator: QemuAccelerator.KVM,
  headless: true,
  directories: ['data'],
  images: ['nginx:1.25', 'registry.example.com/app:1'],
};

/** A bundle folder with everything the template references, and the template replaced by `template`. */
function bundleDir(template: string, omit: string[] = []): string {
  const dir = tempDir('packer');
  const files: Record<string, string> = {
    'packer.json': template,
    'http/preseed.cfg': preseed(BUILD),
    'scripts/install-runtime.sh': installRuntimeScript(),
    'scripts/cleanup.sh': cleanupScript(),
    'scripts/load-secrets.sh': loadSecretsScript(BUILD),
    [unitPath('shop')]: systemdUnit(BUILD),
    'app/compose.yaml': 'services: {}\n',
  };
  for (const [file, content] of Object.entries(files)) {
    if (!omit.includes(file)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), content);
    }
  }
  return dir;
}

function withBuilder(change: (builder: Record<string, unknown>) => void): string {
  const template = JSON.parse(packerTemplate(BUILD));
  change(template.builders[0]);
  return JSON.stringify(template);
}

const UNIT = systemdUnit(BUILD);
const WAITING_UNIT = systemdUnit({
  ...BUILD,
  waitFor: [
    { host: 'shop-db', port: 5432, timeoutSeconds: 300 },
    { host: 'cache', port: 6379, timeoutSeconds: 3 },
  ],
});
const runs: Record<string, Promise<ToolResult>> = {};

/** The shell command of an ExecStartPre= line as systemd runs it ("$$" is "$"), pointed at another host and port. */
function waitCommand(unit: string, index: number, host: string, port: number): string {
  const line = unit.split('\n').filter((l) => l.startsWith('ExecStartPre=/bin/bash -c '))[index];
  return line
    .slice("ExecStartPre=/bin/bash -c '".length, -1)
    .replace(/\$\$/g, '$')
    .replace(/\/dev\/tcp\/[^/]+\/\d+/, `/dev/tcp/${host}/${port}`);
}

function runBash(command: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { timeout: 20_000 }, (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr });
    });
  });
}

beforeAll(async () => {
  runs.systemdWaiting = systemdVerify('shop.service', WAITING_UNIT, '/opt/shop');
  runs.packerGood = packerValidate(bundleDir(packerTemplate(BUILD)));
  runs.packerBadTimeout = packerValidate(
    bundleDir(
      withBuilder((b) => {
        b.ssh_timeout = 'thirty minutes';
      }),
    ),
  );
  runs.packerBadChecksum = packerValidate(
    bundleDir(
      withBuilder((b) => {
        b.iso_checksum = 'sha256:not-hex';
      }),
    ),
  );
  runs.packerMissingScript = packerValidate(bundleDir(packerTemplate(BUILD), ['scripts/cleanup.sh']));
  runs.systemdGood = systemdVerify('shop.service', UNIT, '/opt/shop');
  runs.systemdBadType = systemdVerify('shop.service', UNIT.replace('Type=oneshot', 'Type=oneshoot'), '/opt/shop');
  runs.systemdUnknownKey = systemdVerify(
    'shop.service',
    UNIT.replace('RemainAfterExit=yes', 'RemainAfterExit=yes\nRestartForever=yes'),
    '/opt/shop',
  );
  runs.shGood = shellSyntax(installRuntimeScript());
  runs.shBad = shellSyntax('#!/bin/sh\nif true; then\n  echo missing fi\n');
  await Promise.all(Object.values(runs));
});

describe('golden image build files', () => {
  test('the template never holds a literal password', () => {
    const template = JSON.parse(packerTemplate(BUILD));
    expect(template.builders[0].ssh_password).toBe('{{user `ssh_password`}}');
    expect(template.variables.ssh_password).toBeNull();
    expect(template.builders[0].boot_command.join('')).toContain('passwd/user-password={{user `ssh_password`}}');
    expect(preseed(BUILD)).not.toMatch(/user-password(-crypted)? /);
  });

  test('the preseed gives the build user passwordless sudo, which the shutdown command removes with the password', () => {
    expect(preseed(BUILD)).toContain('echo "packer ALL=(ALL) NOPASSWD: ALL" > /etc/sudoers.d/99-packer');
    expect(JSON.parse(packerTemplate(BUILD)).builders[0].shutdown_command).toBe(
      "sudo sh -c 'passwd --lock packer && rm -f /etc/sudoers.d/99-packer && shutdown -P now'",
    );
  });

  test('images with characters the shell reads are quoted', () => {
    const template = JSON.parse(packerTemplate({ ...BUILD, images: ['app:1', "odd'image:$x"] }));
    expect(template.provisioners.find((p: any) => p.inline).inline).toContain("docker pull 'odd'\\''image:$x'");
  });

  describe('packer validate', () => {
    test('accepts the template', async () => {
      expect(await runs.packerGood).toEqual({ ok: true, output: '' });
    });

    test('fails on a bad ssh_timeout', async () => {
      const result = await runs.packerBadTimeout;
      expect(result.ok).toBe(false);
      expect(result.output).toContain('ssh_timeout');
    });

    test('fails on a bad iso_checksum', async () => {
      const result = await runs.packerBadChecksum;
      expect(result.ok).toBe(false);
      expect(result.output).toMatch(/checksum/i);
    });

    test('fails when a provisioner script is missing', async () => {
      const result = await runs.packerMissingScript;
      expect(result.ok).toBe(false);
      expect(result.output).toContain('scripts/cleanup.sh');
    });
  });

  describe('systemd-analyze verify', () => {
    test('accepts the unit', async () => {
      expect(await runs.systemdGood).toEqual({ ok: true, output: '' });
    });

    test('fails on an unknown service type', async () => {
      const result = await runs.systemdBadType;
      expect(result.ok).toBe(false);
      expect(result.output).toContain('Failed to parse service type, ignoring: oneshoot');
    });

    test('fails on an unknown key', async () => {
      const result = await runs.systemdUnknownKey;
      expect(result.ok).toBe(false);
      expect(result.output).toContain("Unknown key 'RestartForever' in section [Service]");
    });
  });

  describe('waits for services outside the VM', () => {
    test('one bounded bash wait per dependency before the app starts, and a retried start', () => {
      expect(WAITING_UNIT.split('\n').filter((l) => /^(ExecStartPre|ExecStart|Restart|RestartSec)=/.test(l))).toEqual([
        'ExecStartPre=/bin/bash /usr/local/lib/cdk8s-compose/shop-load-secrets.sh',
        "ExecStartPre=/bin/bash -c 'for i in $$(seq 1 150); do (exec 3<>/dev/tcp/shop-db/5432) 2>/dev/null && exit 0; sleep 2; done; " +
          'echo "shop-db:5432 did not accept connections within 300 s" >&2; exit 1\'',
        "ExecStartPre=/bin/bash -c 'for i in $$(seq 1 2); do (exec 3<>/dev/tcp/cache/6379) 2>/dev/null && exit 0; sleep 2; done; " +
          'echo "cache:6379 did not accept connections within 3 s" >&2; exit 1\'',
        'ExecStart=/usr/bin/docker compose up -d',
        'Restart=on-failure',
        'RestartSec=30s',
      ]);
      expect(UNIT.split('\n').filter((l) => l.startsWith('ExecStartPre'))).toEqual([
        'ExecStartPre=/bin/bash /usr/local/lib/cdk8s-compose/shop-load-secrets.sh',
      ]);
      expect(UNIT).not.toContain('Restart=');
    });

    test('systemd-analyze accepts the unit with its waits', async () => {
      expect(await runs.systemdWaiting).toEqual({ ok: true, output: '' });
    });

    test('the wait returns as soon as the port accepts connections, and fails with its message when it never does', async () => {
      const server = net.createServer((socket) => socket.end());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const open = (server.address() as net.AddressInfo).port;
      const closed = await new Promise<number>((resolve) => {
        const probe = net.createServer();
        probe.listen(0, '127.0.0.1', () => {
          const free = (probe.address() as net.AddressInfo).port;
          probe.close(() => resolve(free));
        });
      });
      try {
        const [up, down] = await Promise.all([
          runBash(waitCommand(WAITING_UNIT, 0, '127.0.0.1', open)),
          runBash(waitCommand(WAITING_UNIT, 1, '127.0.0.1', closed)),
        ]);
        expect(up).toEqual({ code: 0, stderr: '' });
        expect(down).toEqual({ code: 1, stderr: 'cache:6379 did not accept connections within 3 s\n' });
      } finally {
        server.close();
      }
    });
  });

  describe('sh -n', () => {
    test('accepts the scripts and fails on a broken one', async () => {
      expect((await runs.shGood).ok).toBe(true);
      expect((await runs.shBad).ok).toBe(false);
    });
  });
});
