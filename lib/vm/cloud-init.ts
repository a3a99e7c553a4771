import { ComposeError } from '../compose/errors';
import { CloudInitPassword, EnvironmentPassword, inlinePasswordError } from './cloud-init-password';
import { parseYaml11, toYaml11 } from './yaml';

export { CloudInitPassword, inlinePasswordError } from './cloud-init-password';

const HEADER = '#cloud-config';
const USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;
const PERMISSIONS = /^0[0-7]{3}$/;
const SSH_KEY =
  /^(ssh-(ed25519|rsa|dss)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com) \S+/;

export interface CloudInitUser {
  /** Login name. */
  readonly name: string;
  /**
   * A sudoers rule for the user, e.g. `ALL=(ALL) NOPASSWD:ALL`.
   * @default - no sudo rule
   */
  readonly sudo?: string;
  /**
   * Login shell.
   * @default '/bin/bash'
   */
  readonly shell?: string;
  /**
   * Supplementary groups.
   * @default - none
   */
  readonly groups?: string[];
  /**
   * Public keys allowed to log in as the user.
   * @default - none
   */
  readonly sshAuthorizedKeys?: string[];
  /**
   * The user's password, supplied by the operator.
   * @default - no password: password login stays locked
   */
  readonly password?: CloudInitPassword;
}

/** A file cloud-init writes early in boot (`write_files`), before the app's systemd unit starts. */
export interface CloudInitFile {
  /** Absolute path in the guest. */
  readonly path: string;
  /** UTF-8 text, or base64 when `base64` is true. */
  readonly content: string;
  /**
   * The content is base64 (binary files); cloud-init decodes it (`encoding: b64`).
   * @default false
   */
  readonly base64?: boolean;
  /**
   * File mode as four octal digits.
   * @default '0644'
   */
  readonly permissions?: string;
  /**
   * `user:group` owner.
   * @default 'root:root'
   */
  readonly owner?: string;
  /**
   * The content is secret (an env file with passwords, a secret file): the user data then goes into a Secret.
   * @default false
   */
  readonly sensitive?: boolean;
}

/** `chpasswd` options. */
export interface CloudInitChpasswd {
  /**
   * Force a password change at first login.
   * @default false - the operator chose the password already
   */
  readonly expire?: boolean;
}

/** Props of {@link CloudConfig}. */
export interface CloudConfigProps {
  /**
   * Users to create.
   * @default - none
   */
  readonly users?: CloudInitUser[];
  /**
   * Packages to install at first boot.
   * @default - none
   */
  readonly packages?: string[];
  /**
   * Commands run once at the end of the first boot: a string runs in `sh`, a list is an argv.
   * @default - none
   */
  readonly runcmd?: Array<string | string[]>;
  /**
   * Allow password login over SSH (`ssh_pwauth`).
   * @default - not written: the image's sshd setting stays
   */
  readonly sshPwauth?: boolean;
  /**
   * Options for passwords that cloud-init sets (`chpasswd`); written only when a user has a password from the environment.
   * @default { expire: false }
   */
  readonly chpasswd?: CloudInitChpasswd;
  /**
   * Files to write.
   * @default - none
   */
  readonly writeFiles?: CloudInitFile[];
}

/** Options for {@link CloudConfig.fromText}. */
export interface CloudConfigFromTextOptions {
  /**
   * The text holds secrets (keys, tokens) and must go into a Secret.
   * @default false
   */
  readonly sensitive?: boolean;
}

/**
 * A cloud-config user data document, built from typed parts or taken as text.
 *
 * Passwords never appear in it inline: a password from the environment is written only into the rendering that
 * `GoldenImageVm` stores in a Secret, and a password from a Secret is set by KubeVirt through the guest agent.
 */
export class CloudConfig {
  /**
   * User data written by hand. It must begin with `#cloud-config`; passwords in it are refused when it is attached
   * to a VM (see {@link CloudConfig.inlinePasswordPaths}).
   */
  public static fromText(text: string, options: CloudConfigFromTextOptions = {}): CloudConfig {
    if (!text.startsWith(`${HEADER}\n`)) {
      throw new ComposeError('cloud-init user data must begin with a "#cloud-config" line', {
        value: text.split('\n')[0],
        allowed: 'a cloud-config document',
        hint: 'put "#cloud-config" on the first line',
      });
    }
    let parsed: unknown;
    try {
      parsed = parseYaml11(text);
    } catch (err) {
      throw new ComposeError(`cloud-init user data is not valid YAML: ${(err as Error).message}`, {
        hint: 'fix the YAML syntax',
      });
    }
    if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) {
      throw new ComposeError('cloud-init user data must be a YAML mapping', {
        hint: 'write keys such as users: and runcmd:',
      });
    }
    const config = new CloudConfig();
    config.text = text.endsWith('\n') ? text : `${text}\n`;
    config.parsedText = (parsed ?? {}) as Record<string, unknown>;
    config.textIsSensitive = options.sensitive ?? false;
    return config;
  }

  private readonly users: CloudInitUser[] = [];
  private readonly packages: string[] = [];
  private readonly runcmd: Array<string | string[]> = [];
  private readonly files: CloudInitFile[] = [];
  private readonly sshPwauth?: boolean;
  private readonly chpasswd: CloudInitChpasswd;
  private text?: string;
  private parsedText?: Record<string, unknown>;
  private textIsSensitive = false;

  constructor(props: CloudConfigProps = {}) {
    this.sshPwauth = props.sshPwauth;
    this.chpasswd = props.chpasswd ?? {};
    for (const user of props.users ?? []) {
      this.addUser(user);
    }
    this.addPackages(...(props.packages ?? []));
    for (const command of props.runcmd ?? []) {
      this.addRuncmd(command);
    }
    for (const file of props.writeFiles ?? []) {
      this.addFile(file);
    }
  }

  /** Adds a user. */
  public addUser(user: CloudInitUser): void {
    this.assertBuilder();
    if (!USER_NAME.test(user.name)) {
      throw new ComposeError('cloud-init user name is not a valid login name', {
        value: user.name,
        allowed: 'a lower-case letter or "_", then up to 31 lower-case letters, digits, "_" or "-"',
        hint: 'use a name such as "ops"',
      });
    }
    if (this.users.some((u) => u.name === user.name)) {
      throw new ComposeError(`cloud-init user "${user.name}" is defined twice`, { hint: 'define each user once' });
    }
    (user.sshAuthorizedKeys ?? []).forEach((key, index) => {
      if (!SSH_KEY.test(key)) {
        throw new ComposeError(
          `cloud-init user "${user.name}": sshAuthorizedKeys[${index}] is not an OpenSSH public key`,
          {
            value: key,
            allowed: 'one line of an authorized_keys file, e.g. "ssh-ed25519 AAAA… comment"',
            hint: 'paste the content of the .pub file',
          },
        );
      }
    });
    if (user.password && !(user.password instanceof CloudInitPassword)) {
      throw inlinePasswordError(`users[${this.users.length}] (${user.name})`);
    }
    this.users.push(user);
  }

  /** Adds packages to install at first boot. */
  public addPackages(...packages: string[]): void {
    this.assertBuilder();
    for (const name of packages) {
      if (!/^[a-z0-9][a-z0-9+.:=~-]*$/.test(name)) {
        throw new ComposeError('cloud-init package is not a package name', {
          value: name,
          allowed: 'a Debian package name, optionally with =version',
          hint: 'write one package per item',
        });
      }
      this.packages.push(name);
    }
  }

  /** Adds a command run at the end of the first boot. */
  public addRuncmd(command: string | string[]): void {
    this.assertBuilder();
    if ((typeof command === 'string' && command.trim() === '') || (Array.isArray(command) && command.length === 0)) {
      throw new ComposeError('cloud-init runcmd item is empty', { hint: 'remove the item or write the command' });
    }
    this.runcmd.push(command);
  }

  /** Adds a file to write. */
  public addFile(file: CloudInitFile): void {
    this.assertBuilder();
    if (!file.path.startsWith('/')) {
      throw new ComposeError('cloud-init file path is not absolute', {
        value: file.path,
        hint: 'write the full path, e.g. /opt/app/.env',
      });
    }
    if (file.permissions !== undefined && !PERMISSIONS.test(file.permissions)) {
      throw new ComposeError(`cloud-init file ${file.path}: permissions are not four octal digits`, {
        value: file.permissions,
        allowed: 'e.g. "0600" or "0644"',
      });
    }
    if (this.files.some((f) => f.path === file.path)) {
      throw new ComposeError(`cloud-init file ${file.path} is written twice`, { hint: 'write each file once' });
    }
    this.files.push(file);
  }

  /** True when the rendered user data holds a secret and must be stored in a Secret rather than inline in the VM. */
  public get carriesSecret(): boolean {
    if (this.text !== undefined) {
      return this.textIsSensitive;
    }
    return this.users.some((u) => u.password?.kind === 'environment') || this.files.some((f) => f.sensitive);
  }

  /** Names of the Secrets that KubeVirt reads user passwords from, sorted. */
  public get passwordSecrets(): string[] {
    const names = new Set(this.users.filter((u) => u.password?.kind === 'secret').map((u) => u.password!.source));
    return [...names].sort();
  }

  /** Names of users whose password KubeVirt sets from `secretName` through the guest agent. */
  public usersWithPasswordFrom(secretName: string): string[] {
    return this.users
      .filter((u) => u.password?.kind === 'secret' && u.password.source === secretName)
      .map((u) => u.name);
  }

  /**
   * Key paths at which the user data sets a password inline (only possible for text from {@link CloudConfig.fromText}):
   * `password`, `users[i].passwd`, `users[i].plain_text_passwd`, `users[i].hashed_passwd`, `chpasswd.list`,
   * `chpasswd.users[i].password`.
   */
  public inlinePasswordPaths(): string[] {
    const doc = this.parsedText;
    if (!doc) {
      return [];
    }
    const paths: string[] = [];
    if ('password' in doc) {
      paths.push('password');
    }
    if (Array.isArray(doc.users)) {
      doc.users.forEach((user, index) => {
        if (user && typeof user === 'object') {
          for (const key of ['passwd', 'plain_text_passwd', 'hashed_passwd']) {
            if (key in user) {
              paths.push(`users[${index}].${key}`);
            }
          }
        }
      });
    }
    const chpasswd = doc.chpasswd;
    if (chpasswd && typeof chpasswd === 'object') {
      const c = chpasswd as Record<string, unknown>;
      if ('list' in c) {
        paths.push('chpasswd.list');
      }
      if (Array.isArray(c.users)) {
        c.users.forEach((user, index) => {
          if (user && typeof user === 'object' && 'password' in user) {
            paths.push(`chpasswd.users[${index}].password`);
          }
        });
      }
    }
    return paths;
  }

  /**
   * The cloud-config document. It holds the value of every password from the environment, so `GoldenImageVm` puts it
   * into a Secret whenever {@link carriesSecret} is true.
   */
  public render(): string {
    if (this.text !== undefined) {
      return this.text;
    }
    const doc: Record<string, unknown> = {};
    if (this.users.length > 0) {
      doc.users = this.users.map(renderUser);
    }
    if (this.sshPwauth !== undefined) {
      doc.ssh_pwauth = this.sshPwauth;
    }
    const withPassword = this.users.filter((u) => u.password?.kind === 'environment');
    if (withPassword.length > 0) {
      doc.chpasswd = {
        expire: this.chpasswd.expire ?? false,
        users: withPassword.map((u) => ({
          name: u.name,
          password: (u.password as EnvironmentPassword)._reveal(),
          type: 'text',
        })),
      };
    }
    if (this.packages.length > 0) {
      doc.packages = [...this.packages];
    }
    if (this.files.length > 0) {
      doc.write_files = this.files.map((f) =>
        compact({
          path: f.path,
          content: f.content,
          encoding: f.base64 ? 'b64' : undefined,
          owner: f.owner ?? 'root:root',
          permissions: f.permissions ?? '0644',
        }),
      );
    }
    if (this.runcmd.length > 0) {
      doc.runcmd = this.runcmd.map((c) => (Array.isArray(c) ? [...c] : c));
    }
    return `${HEADER}\n${Object.keys(doc).length === 0 ? '{}\n' : toYaml11(doc)}`;
  }

  private assertBuilder(): void {
    if (this.text !== undefined) {
      throw new ComposeError('cloud-init user data given as text cannot be extended', {
        hint: 'add the users, packages, commands or files to the text, or build the user data with new CloudConfig({...})',
      });
    }
  }
}

function compact(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}

function renderUser(user: CloudInitUser): Record<string, unknown> {
  const out: Record<string, unknown> = { name: user.name };
  if (user.sudo !== undefined) {
    out.sudo = user.sudo;
  }
  out.shell = user.shell ?? '/bin/bash';
  if (user.groups && user.groups.length > 0) {
    out.groups = [...user.groups];
  }
  if (user.password) {
    // cloud-init locks a new user's password by default; a password set later would then be useless.
    out.lock_passwd = false;
  }
  if (user.sshAuthorizedKeys && user.sshAuthorizedKeys.length > 0) {
    out.ssh_authorized_keys = [...user.sshAuthorizedKeys];
  }
  return out;
}
