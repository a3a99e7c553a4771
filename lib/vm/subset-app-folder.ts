import { ComposeError, ComposeWarning } from '../compose/errors';
import { ComposeConfig, ComposeSecret, ComposeService, VolumeMount } from '../compose/model';
import { compare } from '../util/sort';
import { SubsetSecrets } from './subset-secrets';

/** A file of the app folder, relative to it (`compose.yaml`, `conf/nginx.conf`, `configs/app_config`). */
export interface AppFile {
  readonly path: string;
  /** UTF-8 text, or base64 when `binary`. */
  readonly text: string;
  readonly binary: boolean;
}

/** Props of {@link AppFolder}. */
export interface AppFolderProps {
  /** The app folder in the guest, named in warnings. */
  readonly appDirectory: string;
  /** The compose files, the first named in messages about clashing files. */
  readonly composeFiles: readonly string[];
  /** Where secret files go instead of the folder. */
  readonly secrets: SubsetSecrets;
  /** Whether a file's text holds a secret. */
  readonly containsSecret: (text: string) => boolean;
  /** Notes a caveat. */
  readonly warn: (code: string, message: string, at: ComposeWarning['at']) => void;
}

const SECRETS_DIR = 'secrets';
const CONFIGS_DIR = 'configs';
const RESERVED_FILES = new Set(['compose.yaml', '.env', '.env.example']);

/**
 * The app folder beside the VM's compose file: bind-mounted files and config contents at the paths the compose file
 * uses, folders to create empty, and the paths of secret files, which the operator supplies.
 */
export class AppFolder {
  private readonly fileMap = new Map<string, AppFile>();
  private readonly directorySet = new Set<string>();

  constructor(private readonly props: AppFolderProps) {}

  /** The non-secret files, sorted by path. */
  public files(): AppFile[] {
    return [...this.fileMap.values()].sort((a, b) => compare(a.path, b.path));
  }

  /** The folders to create empty, sorted. */
  public directories(): string[] {
    return [...this.directorySet].sort(compare);
  }

  /** Puts a bind mount's source in the app folder where it can; returns the source path the compose file uses. */
  public placeBind(volume: VolumeMount, service: ComposeService): string {
    const source = volume.source!;
    const kind = volume.bind?.kind ?? 'missing';
    if (kind === 'outside') {
      if (!source.startsWith('/')) {
        this.props.warn(
          'vm-bind-outside',
          `the bind source "${source}" lies outside the project folder: provide it in the VM at the path it resolves to from ${this.props.appDirectory}`,
          volume.at,
        );
      }
      return source;
    }
    const relative = appRelative(source, volume.at);
    if (kind === 'directory' || kind === 'missing') {
      this.directorySet.add(relative);
      if (kind === 'directory') {
        this.props.warn(
          'vm-bind-directory',
          `the folder "${source}" is created empty in the image: copy its content into the bundle's app/${relative}/ before the build`,
          volume.at,
        );
      }
      return `./${relative}`;
    }
    const content = volume.bind?.content;
    if (!content) {
      this.props.warn(
        'vm-bind-unread',
        `the file "${source}" was not read (too large): copy it into the bundle's app/${relative} before the build`,
        volume.at,
      );
      return `./${relative}`;
    }
    if (!content.binary && this.props.containsSecret(content.text)) {
      this.props.secrets.addFile(relative, content, `${service.at.path}.volumes (${volume.at.path})`);
      return `./${relative}`;
    }
    this.addFile({ path: relative, text: content.text, binary: content.binary }, volume.at.path);
    return `./${relative}`;
  }

  /** A compose secret as the VM's compose file declares it: a file under `secrets/`, which the operator supplies. */
  public renderSecret(secret: ComposeSecret): Record<string, unknown> {
    if (secret.source.kind === 'external') {
      this.props.warn(
        'vm-external-secret',
        `the external secret "${secret.source.externalName}" exists only in a swarm: docker compose in the VM cannot use it`,
        secret.at,
      );
      return { external: true, name: secret.source.externalName };
    }
    const path = `${SECRETS_DIR}/${fileName(secret.name, secret.at)}`;
    this.props.secrets.addFile(
      path,
      secret.source.kind !== 'outside' ? secret.source.content : undefined,
      secret.at.path,
    );
    return { file: `./${path}` };
  }

  /** A compose config as the VM's compose file declares it: a file under `configs/`, written unless it holds a secret. */
  public renderConfig(config: ComposeConfig): Record<string, unknown> {
    if (config.source.kind === 'external') {
      this.props.warn(
        'vm-external-config',
        `the external config "${config.source.externalName}" exists only in a swarm: docker compose in the VM cannot use it`,
        config.at,
      );
      return { external: true, name: config.source.externalName };
    }
    const path = `${CONFIGS_DIR}/${fileName(config.name, config.at)}`;
    if (config.source.kind === 'outside') {
      this.props.warn(
        'vm-config-outside',
        `the config file "${config.source.path}" lies outside the project folder and was not read: copy it into the bundle's app/${path} before the build`,
        config.at,
      );
      return { file: `./${path}` };
    }
    const content = config.source.content;
    if (!content.binary && this.props.containsSecret(content.text)) {
      this.props.secrets.addFile(path, content, config.at.path);
    } else {
      this.addFile({ path, text: content.text, binary: content.binary }, config.at.path);
    }
    return { file: `./${path}` };
  }

  private addFile(file: AppFile, path: string): void {
    const existing = this.fileMap.get(file.path);
    if (existing && (existing.text !== file.text || existing.binary !== file.binary)) {
      throw new ComposeError(`two different files would be written to ${file.path} in the app folder`, {
        at: { file: this.props.composeFiles[0] ?? 'compose.yaml', path },
        hint: 'rename one of them in the compose file',
      });
    }
    this.fileMap.set(file.path, file);
  }
}

/** The path of a bind source inside the app folder: `./conf/app.ini` → `conf/app.ini`. */
function appRelative(source: string, at: VolumeMount['at']): string {
  const parts = source.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..') || source.startsWith('/') || source.startsWith('~')) {
    throw new ComposeError('a bind source inside the project folder has an unusable path', {
      at,
      value: source,
      hint: 'write the path relative to the project folder, e.g. ./conf/app.ini',
    });
  }
  const relative = parts.join('/');
  if (RESERVED_FILES.has(relative) || relative === SECRETS_DIR || relative.startsWith(`${SECRETS_DIR}/`)) {
    throw new ComposeError(`the bind source "${source}" collides with a file the golden image manages`, {
      at,
      allowed: `any path but ${[...RESERVED_FILES].join(', ')} and ${SECRETS_DIR}/`,
      hint: 'move the file to another folder in the project',
    });
  }
  return relative;
}

function fileName(name: string, at: ComposeSecret['at']): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) {
    throw new ComposeError('the name cannot be used as a file name in the app folder', {
      at,
      value: name,
      allowed: 'letters, digits, ".", "_" and "-"',
      hint: 'rename it in the compose file',
    });
  }
  return name;
}
