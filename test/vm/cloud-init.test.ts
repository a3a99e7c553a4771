import { CloudConfig, CloudInitPassword } from '../../lib/vm/cloud-init';
import { cloudInitSchema } from './tools';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx0cdk8scomposetestkeyonlyAAAAAAAAAAAAAA ops@example';

function full(): CloudConfig {
  return new CloudConfig({
    users: [{ name: 'ops', sudo: 'ALL=(ALL) NOPASSWD:ALL', shell: '/bin/bash', sshAuthorizedKeys: [KEY] }],
    packages: ['qemu-guest-agent', 'htop'],
    runcmd: [['systemctl', 'start', 'qemu-guest-agent'], 'echo "ready: yes" > /run/ready'],
    sshPwauth: false,
    chpasswd: { expire: true },
  });
}

describe('CloudConfig', () => {
  test('renders the typed parts as a #cloud-config document', () => {
    expect(full().render()).toBe(
      [
        '#cloud-config',
        'users:',
        '  - name: ops',
        '    sudo: ALL=(ALL) NOPASSWD:ALL',
        '    shell: /bin/bash',
        '    ssh_authorized_keys:',
        `      - ${KEY}`,
        'ssh_pwauth: false',
        'packages:',
        '  - qemu-guest-agent',
        '  - htop',
        'runcmd:',
        '  - - systemctl',
        '    - start',
        '    - qemu-guest-agent',
        '  - \'echo "ready: yes" > /run/ready\'',
        '',
      ].join('\n'),
    );
  });

  test('a password from the environment goes into chpasswd with expire, and the user is unlocked', () => {
    const config = new CloudConfig({
      users: [
        { name: 'ops', password: CloudInitPassword.fromEnvironment('VM_PASSWORD', { VM_PASSWORD: 'correct horse' }) },
      ],
      sshPwauth: true,
    });
    expect(config.carriesSecret).toBe(true);
    expect(config.render()).toBe(
      [
        '#cloud-config',
        'users:',
        '  - name: ops',
        '    shell: /bin/bash',
        '    lock_passwd: false',
        'ssh_pwauth: true',
        'chpasswd:',
        '  expire: false',
        '  users:',
        '    - name: ops',
        '      password: correct horse',
        '      type: text',
        '',
      ].join('\n'),
    );
  });

  test('a password from a Secret stays out of the user data', () => {
    const config = new CloudConfig({
      users: [{ name: 'ops', password: CloudInitPassword.fromSecret('vm-passwords') }],
    });
    expect(config.carriesSecret).toBe(false);
    expect(config.passwordSecrets).toEqual(['vm-passwords']);
    expect(config.usersWithPasswordFrom('vm-passwords')).toEqual(['ops']);
    expect(config.render()).toBe(
      '#cloud-config\nusers:\n  - name: ops\n    shell: /bin/bash\n    lock_passwd: false\n',
    );
  });

  test('files: sensitive ones make the user data secret; binary ones are base64', () => {
    const config = new CloudConfig({
      writeFiles: [
        { path: '/opt/app/.env', content: "A='1'\n", permissions: '0600', sensitive: true },
        { path: '/opt/app/logo.png', content: 'iVBORw0KGgo=', base64: true },
      ],
    });
    expect(config.carriesSecret).toBe(true);
    expect(config.render()).toContain('    encoding: b64\n');
    expect(config.render()).toContain('    permissions: "0600"\n');
  });

  test('YAML 1.1 words stay strings', () => {
    const config = new CloudConfig({ runcmd: ['yes', 'on', '0644'] });
    expect(config.render()).toBe('#cloud-config\nruncmd:\n  - "yes"\n  - "on"\n  - "0644"\n');
  });

  test('an empty config is a valid document', () => {
    expect(new CloudConfig().render()).toBe('#cloud-config\n{}\n');
  });

  describe('cloud-init schema -c', () => {
    const documents: Array<[string, string]> = [
      ['the full builder', full().render()],
      [
        'an env password',
        new CloudConfig({
          users: [{ name: 'ops', groups: ['docker'], password: CloudInitPassword.fromEnvironment('P', { P: 'pw' }) }],
          sshPwauth: true,
        }).render(),
      ],
      [
        'write_files',
        new CloudConfig({
          writeFiles: [
            { path: '/opt/app/.env', content: 'A=1\n', permissions: '0600', sensitive: true },
            { path: '/opt/app/x.bin', content: 'AAE=', base64: true },
          ],
        }).render(),
      ],
      ['an empty document', new CloudConfig().render()],
    ];
    const BROKEN = '#cloud-config\nusers: 3\nssh_pwauth: true\n';
    const DEPRECATED = '#cloud-config\nssh_pwauth: "maybe"\n';
    // All spawns at once; each test awaits its own.
    beforeAll(() => Promise.all([...documents.map(([, d]) => d), BROKEN, DEPRECATED].map(cloudInitSchema)));

    test.each(documents)('accepts %s', async (_name, document) => {
      const result = await cloudInitSchema(document);
      expect(result.output).toContain('Valid cloud-config');
      expect(result.ok).toBe(true);
    });

    test('fails on a broken document', async () => {
      const result = await cloudInitSchema(BROKEN);
      expect(result.ok).toBe(false);
      expect(result.output).toContain("users: 3 is not of type 'string', 'array', 'object'");
    });

    test('fails on a deprecated value', async () => {
      const result = await cloudInitSchema(DEPRECATED);
      expect(result.ok).toBe(false);
      expect(result.output).toContain('DEPRECATED');
    });
  });

  describe('fromText', () => {
    test('keeps the text and finds inline passwords', () => {
      const config = CloudConfig.fromText(
        [
          '#cloud-config',
          'password: pw',
          'users:',
          '  - name: a',
          '    plain_text_passwd: pw',
          '  - name: b',
          '    hashed_passwd: $6$x',
          'chpasswd:',
          '  list: |',
          '    a:pw',
          '  users:',
          '    - {name: a, password: pw}',
        ].join('\n'),
      );
      expect(config.inlinePasswordPaths()).toEqual([
        'password',
        'users[0].plain_text_passwd',
        'users[1].hashed_passwd',
        'chpasswd.list',
        'chpasswd.users[0].password',
      ]);
      expect(config.render().endsWith('\n')).toBe(true);
    });

    test('refuses text without the header', () => {
      expect(() => CloudConfig.fromText('users: []\n')).toThrow(
        'cloud-init user data must begin with a "#cloud-config" line (got "users: []"). Allowed: a cloud-config document. Fix: put "#cloud-config" on the first line.',
      );
    });

    test('cannot be extended', () => {
      expect(() => CloudConfig.fromText('#cloud-config\n{}\n').addPackages('htop')).toThrow(
        'cloud-init user data given as text cannot be extended',
      );
    });
  });

  describe('fails when', () => {
    test('a password is given as a plain string', () => {
      expect(() => new CloudConfig({ users: [{ name: 'ops', password: 'hunter2' as never }] })).toThrow(
        'users[0] (ops): the cloud-init user data sets a password inline.',
      );
    });

    test('a user name is not a login name', () => {
      expect(() => new CloudConfig({ users: [{ name: 'Ops Team' }] })).toThrow(
        'cloud-init user name is not a valid login name (got "Ops Team")',
      );
    });

    test('an SSH key is not a public key', () => {
      expect(
        () => new CloudConfig({ users: [{ name: 'ops', sshAuthorizedKeys: ['-----BEGIN OPENSSH PRIVATE KEY-----'] }] }),
      ).toThrow('cloud-init user "ops": sshAuthorizedKeys[0] is not an OpenSSH public key');
    });

    test('a file path is relative or its mode is not octal', () => {
      expect(() => new CloudConfig({ writeFiles: [{ path: 'opt/app/.env', content: '' }] })).toThrow(
        'cloud-init file path is not absolute',
      );
      expect(() => new CloudConfig({ writeFiles: [{ path: '/x', content: '', permissions: '644' }] })).toThrow(
        'cloud-init file /x: permissions are not four octal digits (got "644")',
      );
    });
  });
});
