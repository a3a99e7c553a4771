import * as fs from 'fs';
import * as path from 'path';
import { App, Size } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import {
  DEFAULT_SENSITIVE_NAME_PATTERNS,
  Redactor,
  embeddedPasswords,
  hasEmbeddedPassword,
  isSensitiveName,
} from '../compose/sensitive';
import { ComposeError, ComposeWarning, formatWarning } from '../compose/errors';
import { LoadComposeOptions, loadCompose } from '../compose/load';
import { ComposeModel, ComposeService, EnvVar } from '../compose/model';
import { ComposeSubset, OperatorInput, SensitiveEnvPredicate, VmPublishedPort, composeSubset } from './compose-subset';
import { IGoldenImage } from './disk-source';
import {
  BUNDLE_PATHS,
  GoldenImageBuild,
  QemuAccelerator,
  ServiceWait,
  cleanupScript,
  dockerDataDropIn,
  imageFileName,
  installRuntimeScript,
  loadSecretsScript,
  packerTemplate,
  readinessCommand,
  preseed,
  systemdUnit,
  unitPath,
} from './golden-image-files';
import { RunbookStep, goldenImageBuildSteps, packerPluginStep, renderStepsMarkdown } from './install-steps';
import { InstallerIso } from './installer-iso';
import { sizeToGibibytesCeil, sizeToMebibytesCeil } from '../base/sizes';
import { compare } from '../util/sort';

/** The folder under the synth output that holds every bundle. */
export const GOLDEN_IMAGE_DIR = 'golden-image';

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;
const APP_DIRECTORY = /^\/[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** Props of {@link GoldenImageBundle}. */
export interface GoldenImageBundleProps {
  /** The loaded compose project. */
  readonly model: ComposeModel;
  /**
   * The services the image runs.
   * @default - every service of the project
   */
  readonly services?: string[];
  /**
   * Bundle name: the folder `golden-image/<name>/`, the systemd unit `<name>.service`, the image `<name>.qcow2`.
   * @default - the project name
   */
  readonly name?: string;
  /**
   * The installer ISO.
   * @default InstallerIso.debian12()
   */
  readonly iso?: InstallerIso;
  /**
   * Virtual disk size of the image (`disk_size`, whole GiB).
   * @default Size.gibibytes(20)
   */
  readonly diskSize?: Size;
  /**
   * Memory of the build VM (`memory`, MB).
   * @default Size.gibibytes(2)
   */
  readonly memory?: Size;
  /**
   * CPUs of the build VM.
   * @default 2
   */
  readonly cpus?: number;
  /**
   * The installer's user, who logs in over SSH during the build; its password is locked at the end.
   * @default 'packer'
   */
  readonly sshUsername?: string;
  /**
   * QEMU accelerator of the build.
   * @default QemuAccelerator.KVM
   */
  readonly accelerator?: QemuAccelerator;
  /**
   * Run the build VM without a window.
   * @default true
   */
  readonly headless?: boolean;
  /**
   * Where the app lives in the guest.
   * @default `/opt/<name>`
   */
  readonly appDirectory?: string;
  /**
   * Which env values are secret; they are left out of the bundle and read from the app folder's `.env`.
   * @default - the rules of `lib/compose/sensitive`: a sensitive name (DEFAULT_SENSITIVE_NAME_PATTERNS) or a URL/DSN with a password
   */
  readonly isSensitive?: SensitiveEnvPredicate;
  /**
   * Services outside the VM that the image's services depend on, by compose service name: the unit waits until
   * each accepts TCP connections before it starts the app, and retries the start when one does not in time
   * (compose's `depends_on` cannot name a service outside the VM).
   * @default - none: dependencies outside the VM are reported, and start order is not enforced
   */
  readonly waitFor?: Readonly<Record<string, ServiceWait>>;
  /**
   * Keep docker's named volumes on a data disk of the VM (serial `app-data`, formatted on its first boot), so that a
   * new image keeps the data; docker then does not start without the disk.
   * @default - true when the services mount a named volume
   */
  readonly dataDisk?: boolean;
}

/** Options for {@link GoldenImageBundle.fromComposeFile}. */
export interface GoldenImageBundleFromFileOptions extends Omit<GoldenImageBundleProps, 'model'> {
  /**
   * Options for the loader (environment, profiles, images for build-only services…).
   * @default {}
   */
  readonly load?: Omit<LoadComposeOptions, 'files' | 'workingDir'>;
}

/** One file of a bundle. */
export interface BundleFile {
  /** Path relative to the bundle folder. */
  readonly path: string;
  readonly content: Buffer;
}

/**
 * The build description of a golden VM image that runs some or all services of a compose app:
 *
 * - `packer.json`: a Packer template (`qemu` builder, Debian netinst with `http/preseed.cfg`) whose provisioners
 *   install Docker with the compose plugin, cloud-init and the qemu guest agent, put `app/` in place in the app
 *   folder, register and enable the systemd unit, and pull the images;
 * - `app/`: the compose file of the subset (`compose.yaml`), its config and bind-mounted files, and `.env.example`
 *   listing the secret variables;
 * - `systemd/<name>.service`: the oneshot unit that runs `docker compose up -d` at boot;
 * - `scripts/`, `README.md`.
 *
 * Secret values are never written: secret env values are `${VAR:?…}` references to the app folder's `.env`, and
 * secret files are expected under `app/secrets/`. The operator supplies both: at boot through cloud-init (what
 * `ComposeVm` does, from a Secret), or by copying them into `app/` before the build (they are then baked into the
 * image). The bundle is byte-stable.
 *
 * Cdk8s writes only manifests: call {@link GoldenImageBundle.synthesizeAll} after `app.synth()`.
 */
export class GoldenImageBundle extends Construct implements IGoldenImage {
  /**
   * A bundle from a compose file on disk.
   * @param file the compose file, e.g. `legacy/compose.yaml`
   */
  public static fromComposeFile(
    scope: Construct,
    id: string,
    file: string,
    options: GoldenImageBundleFromFileOptions = {},
  ): GoldenImageBundle {
    const { model, warnings } = loadCompose({
      ...options.load,
      files: [path.basename(file)],
      workingDir: path.dirname(file),
    });
    const bundle = new GoldenImageBundle(scope, id, { ...options, model });
    bundle.loadWarnings.push(...warnings);
    return bundle;
  }

  /**
   * Writes every bundle in the construct tree to `<outdir>/golden-image/<name>/`, after removing what an earlier run
   * left in `<outdir>/golden-image/`. Call it after `app.synth()` (`cdk8s synth` empties the output folder first).
   *
   * @param scope the App, or any construct whose tree holds the bundles
   * @param outdir the output folder
   * @default outdir - the App's outdir
   * @returns the written files, relative to outdir, sorted
   */
  public static synthesizeAll(scope: IConstruct, outdir?: string): string[] {
    const root = scope.node.root;
    const dir = outdir ?? (root instanceof App ? root.outdir : undefined);
    if (dir === undefined) {
      throw new ComposeError('the output folder of the golden image bundles is unknown', {
        hint: 'pass outdir, or call synthesizeAll with a construct of a cdk8s App',
      });
    }
    const bundles = scope.node
      .findAll()
      .filter((c): c is GoldenImageBundle => c instanceof GoldenImageBundle)
      .sort((a, b) => compare(a.name, b.name));
    for (let i = 1; i < bundles.length; i++) {
      if (bundles[i].name === bundles[i - 1].name) {
        throw new ComposeError(`two golden image bundles are named "${bundles[i].name}"`, {
          allowed: 'one bundle per name',
          hint: `give one of ${bundles[i - 1].node.path} and ${bundles[i].node.path} another name`,
        });
      }
    }
    const base = path.join(dir, GOLDEN_IMAGE_DIR);
    fs.rmSync(base, { recursive: true, force: true });
    const written: string[] = [];
    for (const bundle of bundles) {
      for (const file of bundle.files()) {
        const target = path.join(base, bundle.name, file.path);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, file.content);
        written.push(path.posix.join(GOLDEN_IMAGE_DIR, bundle.name, file.path));
      }
    }
    return written.sort(compare);
  }

  /** Bundle name. */
  public readonly name: string;
  /** The image file published for DataVolumes: `<name>.qcow2`. */
  public readonly imageFile: string;
  /** The image's virtual disk size. */
  public readonly diskSize: Size;
  /** Where the app lives in the guest. */
  public readonly appDirectory: string;
  /** The services the image runs, sorted. */
  public readonly services: readonly string[];
  /** The compose project of the image. */
  public readonly subset: ComposeSubset;
  /** Whether docker keeps its named volumes on the VM's data disk. */
  public readonly dataDisk: boolean;
  /** The compose project name in the guest (`name:` of the compose file). */
  public readonly projectName: string;

  private readonly build: GoldenImageBuild;
  private readonly projectFiles: readonly string[];
  private readonly loadWarnings: ComposeWarning[] = [];

  constructor(scope: Construct, id: string, props: GoldenImageBundleProps) {
    super(scope, id);
    const model = props.model;
    this.projectFiles = model.files;
    this.name = props.name ?? model.name;
    const sshUsername = props.sshUsername ?? 'packer';
    this.appDirectory = props.appDirectory ?? `/opt/${this.name}`;
    const cpus = props.cpus ?? 2;
    const waitFor = props.waitFor ?? {};
    checkBundleSettings(this.name, sshUsername, this.appDirectory, cpus, waitFor);
    this.diskSize = Size.gibibytes(sizeToGibibytesCeil(props.diskSize ?? Size.gibibytes(20)));
    this.imageFile = imageFileName(this.name);
    this.services = [...new Set(props.services ?? model.services.map((s) => s.name))].sort(compare);

    const secrets = collectSecretValues(model, this.services, props.isSensitive ?? defaultIsSensitive);
    this.subset = composeSubset(model, this.appDirectory, {
      services: this.services,
      isSensitive: props.isSensitive ?? defaultIsSensitive,
      containsSecret: (text) => secrets.foundIn(text),
      secretValues: secrets,
      awaited: Object.fromEntries(
        Object.entries(waitFor).map(([service, wait]) => [service, `${wait.host}:${wait.port}`]),
      ),
    });
    this.projectName = model.name;
    const chosen = new Set(this.services);
    this.dataDisk =
      props.dataDisk ??
      model.services.some((s) => chosen.has(s.name) && s.volumes.some((v) => v.type === 'volume' && v.source));
    this.build = {
      dataDisk: this.dataDisk,
      name: this.name,
      appDirectory: this.appDirectory,
      iso: props.iso ?? InstallerIso.debian12(),
      diskSizeGib: sizeToGibibytesCeil(this.diskSize),
      memoryMib: sizeToMebibytesCeil(props.memory ?? Size.gibibytes(2)),
      cpus,
      sshUsername,
      accelerator: props.accelerator ?? QemuAccelerator.KVM,
      headless: props.headless ?? true,
      directories: this.subset.directories,
      images: this.subset.images,
      waitFor: Object.keys(waitFor)
        .sort(compare)
        .map((service) => waitFor[service]),
    };
  }

  /** Findings of the loader (for bundles from a file) and of the conversion, in that order. */
  public get warnings(): readonly ComposeWarning[] {
    return [...this.loadWarnings, ...this.subset.warnings];
  }

  /** Secret values and files the operator supplies, sorted. */
  public get operatorInputs(): readonly OperatorInput[] {
    return this.subset.operatorInputs;
  }

  /** The ports published on the VM, per compose service. */
  public get ports(): readonly VmPublishedPort[] {
    return this.subset.ports;
  }

  /** The command of the VM's readiness probe: the app's unit is active and no container is unhealthy or starting. */
  public readinessCommand(): string[] {
    return readinessCommand(this.build, this.projectName);
  }

  /** The steps that build, convert and publish the image, for a bundle under `outdir`. */
  public buildSteps(outdir = 'dist', imageUrl?: string): RunbookStep[] {
    return this.buildStepsIn(path.posix.join(outdir, GOLDEN_IMAGE_DIR, this.name), imageUrl);
  }

  private buildStepsIn(bundleDir: string, imageUrl?: string): RunbookStep[] {
    return [
      packerPluginStep(),
      ...goldenImageBuildSteps({
        bundleDir,
        outputDirectory: BUNDLE_PATHS.outputDirectory,
        vmName: this.imageFile,
        imageFile: this.imageFile,
        imageUrl,
      }),
    ];
  }

  /** Every file of the bundle, sorted by path. */
  public files(): BundleFile[] {
    const text = (p: string, content: string): BundleFile => ({ path: p, content: Buffer.from(content, 'utf-8') });
    const files: BundleFile[] = [
      text(BUNDLE_PATHS.template, packerTemplate(this.build)),
      text(BUNDLE_PATHS.preseed, preseed(this.build)),
      text(BUNDLE_PATHS.installRuntime, installRuntimeScript()),
      text(BUNDLE_PATHS.cleanup, cleanupScript()),
      text(BUNDLE_PATHS.loadSecrets, loadSecretsScript(this.build)),
      ...(this.dataDisk ? [text(BUNDLE_PATHS.dockerDataDropIn, dockerDataDropIn())] : []),
      text(unitPath(this.name), systemdUnit(this.build)),
      text(BUNDLE_PATHS.composeFile, this.subset.composeFile),
      text(BUNDLE_PATHS.envExample, this.envExample()),
      text(BUNDLE_PATHS.readme, this.readme()),
      ...this.subset.files.map((f) => ({
        path: `${BUNDLE_PATHS.appFolder}/${f.path}`,
        content: Buffer.from(f.text, f.binary ? 'base64' : 'utf-8'),
      })),
    ];
    return files.sort((a, b) => compare(a.path, b.path));
  }

  private envExample(): string {
    const lines = [
      `# The variables of "${this.name}" (secret values and those of \${VAR} references). Copy to .env in ${this.appDirectory}`,
      "# (mode 0600) with the values filled in, or let the unit write it from the VM's Secret. Never commit the filled-in file.",
    ];
    for (const input of this.operatorInputs.filter((i) => i.kind === 'env')) {
      lines.push(`# used by ${input.usedBy.join(', ')}`, `${input.name}=`);
    }
    return `${lines.join('\n')}\n`;
  }

  private readme(): string {
    const env = this.operatorInputs.filter((i) => i.kind === 'env');
    const files = this.operatorInputs.filter((i) => i.kind === 'file');
    const lines = [
      `# Golden image "${this.name}"`,
      '',
      `Generated by cdk8s-compose from ${this.projectFiles.join(', ')}: services ${this.services.join(', ')}.`,
      `The image runs them with \`docker compose up -d\` from \`${this.appDirectory}\` (systemd unit \`${this.name}.service\`).`,
      '',
      '## Build',
      '',
      'Run these in this folder, wherever the bundle was written (`dist/` or a `convert` output folder).',
      '',
      renderStepsMarkdown(this.buildStepsIn('.')).trimEnd(),
      '',
      '## What the operator supplies',
      '',
      'The values of `${VAR}` references and secret values are not in this bundle. The app reads them from the app',
      "folder, where the unit writes them at every start from the VM's Secret (a disk with the serial `app-secrets`),",
      'or where they are baked in when copied into `app/` before the build.',
      '',
    ];
    if (env.length === 0 && files.length === 0) {
      lines.push('Nothing: the services have no secret values.', '');
    }
    if (env.length > 0) {
      lines.push(`Variables of \`${this.appDirectory}/.env\` (see \`app/.env.example\`):`, '');
      lines.push(...env.map((i) => `- \`${i.name}\` (${i.usedBy.join(', ')})`), '');
    }
    if (files.length > 0) {
      lines.push(`Files in \`${this.appDirectory}\`:`, '');
      lines.push(...files.map((i) => `- \`${i.name}\` (${i.usedBy.join(', ')})`), '');
    }
    if (this.warnings.length > 0) {
      // By key path, without line numbers: reordering the compose file must not change the bundle.
      const caveats = this.warnings
        .map((w) => formatWarning({ ...w, at: { file: w.at.file, path: w.at.path } }))
        .sort();
      lines.push('## Caveats', '', ...caveats.map((c) => `- ${c}`), '');
    }
    return lines.join('\n');
  }
}

/** Rules on the bundle's props alone, checked at once: throws the first one broken. */
function checkBundleSettings(
  name: string,
  sshUsername: string,
  appDirectory: string,
  cpus: number,
  waitFor: Readonly<Record<string, ServiceWait>>,
): void {
  if (!NAME.test(name)) {
    throw new ComposeError('the golden image bundle name is not usable as a folder and unit name', {
      value: name,
      allowed: 'lower-case letters, digits, "_" and "-", starting with a letter or digit, at most 63 characters',
      hint: 'pass name',
    });
  }
  if (!USER_NAME.test(sshUsername)) {
    throw new ComposeError('the build user name is not a valid login name', {
      value: sshUsername,
      allowed: 'a lower-case letter or "_", then up to 31 lower-case letters, digits, "_" or "-"',
    });
  }
  if (!APP_DIRECTORY.test(appDirectory) || appDirectory.split('/').includes('..')) {
    throw new ComposeError('the app folder is not a plain absolute path', {
      value: appDirectory,
      allowed: 'an absolute path of letters, digits, ".", "_" and "-"',
      hint: 'e.g. /opt/shop',
    });
  }
  if (!Number.isInteger(cpus) || cpus < 1) {
    throw new ComposeError('the build VM needs a whole number of CPUs', { value: cpus, allowed: '1 or more' });
  }
  for (const [service, wait] of Object.entries(waitFor).sort(([a], [b]) => compare(a, b))) {
    if (
      !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(wait.host) ||
      !(Number.isInteger(wait.port) && wait.port >= 1 && wait.port <= 65535) ||
      !(Number.isInteger(wait.timeoutSeconds) && wait.timeoutSeconds >= 1)
    ) {
      throw new ComposeError(`the wait for service "${service}" is not usable`, {
        value: `${wait.host}:${wait.port} within ${wait.timeoutSeconds} s`,
        allowed: 'a DNS name, a port 1-65535 and a whole number of seconds, 1 or more',
      });
    }
  }
}

/** The default rule 3: a sensitive variable name, or a URL or DSN with a password in it. */
const defaultIsSensitive: SensitiveEnvPredicate = (env: EnvVar) =>
  isSensitiveName(env.name, DEFAULT_SENSITIVE_NAME_PATTERNS) || hasEmbeddedPassword(env.value);

/** Every secret string of the chosen services, so that files and values that contain one stay out of the bundle. */
function collectSecretValues(
  model: ComposeModel,
  services: readonly string[],
  isSensitive: SensitiveEnvPredicate,
): Redactor {
  const values = new Redactor();
  // The loader's: .env and shell values the files use (`--requirepass ${REDIS_PASSWORD}`), secret files.
  (model.secretValues ?? []).forEach((value) => values.add(value));
  values.keepNames([model.name, ...model.services.flatMap((s) => [s.name, s.image])]);
  const chosen = new Set(services);
  for (const service of model.services.filter((s: ComposeService) => chosen.has(s.name))) {
    for (const env of service.environment) {
      if (isSensitive(env, service)) {
        values.add(env.value);
      }
      embeddedPasswords(env.value).forEach((p) => values.add(p));
    }
  }
  for (const secret of model.secrets) {
    if (secret.source.kind !== 'external' && secret.source.kind !== 'outside' && !secret.source.content.binary) {
      values.add(secret.source.content.text);
    }
  }
  return values;
}
