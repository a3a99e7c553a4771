import * as fs from 'fs';
import * as path from 'path';
import {
  GoldenImageBuild, QemuAccelerator, cleanupScript, installRuntimeScript, packerTemplate, preseed, systemdUnit, unitPath,
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
const runs: Record<string, Promise<ToolResult>> = {};
beforeAll(async () => {
  runs.packerGood = packerValidate(bundleDir(packerTemplate(BUILD)));
  runs.packerBadTimeout = packerValidate(bundleDir(withBuilder((b) => { b.ssh_timeout = 'thirty minutes'; })));
  runs.packerBadChecksum = packerValidate(bundleDir(withBuilder((b) => { b.iso_checksum = 'sha256:not-hex'; })));
  runs.packerMissingScript = packerValidate(bundleDir(packerTemplate(BUILD), ['scripts/cleanup.sh']));
  runs.systemdGood = systemdVerify('shop.service', UNIT, '/opt/shop');
  runs.systemdBadType = systemdVerify('shop.service', UNIT.replace('Type=oneshot', 'Type=oneshoot'), '/opt/shop');
  runs.systemdUnknownKey = systemdVerify('shop.service', UNIT.replace('RemainAfterExit=yes', 'RemainAfterExit=yes\nRestartForever=yes'), '/opt/shop');
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
    expect(JSON.parse(packerTemplate(BUILD)).builders[0].shutdown_command)
      .toBe("sudo sh -c 'passwd --lock packer && rm -f /etc/sudoers.d/99-packer && shutdown -P now'");
  });

  test('images with characters the shell reads are quoted', () => {
    const template = JSON.parse(packerTemplate({ ...BUILD, images: ['app:1', "odd'image:$x"] }));
    expect(template.provisioners[3].inline).toContain("docker pull 'odd'\\''image:$x'");
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

  describe('sh -n', () => {
    test('accepts the scripts and fails on a broken one', async () => {
      expect((await runs.shGood).ok).toBe(true);
      expect((await runs.shBad).ok).toBe(false);
    });
  });
});
