import { interpolateString } from '../compose/interpolate';
import { ComposeService, EnvVar, FileContent } from '../compose/model';
import { MIN_SCANNED_SECRET_LENGTH, Redactor, embeddedPasswords } from '../compose/sensitive';
import { compare } from '../util/sort';

/** Decides whether an environment variable's value is secret (rule 3). */
export type SensitiveEnvPredicate = (env: EnvVar, service: ComposeService) => boolean;

/** Something the operator must supply before the app starts in the VM; never written into the bundle. */
export interface OperatorInput {
  /** `env` (a variable of the app folder's `.env`) or `file` (a file in the app folder). */
  readonly kind: 'env' | 'file';
  /** The variable name, or the file path relative to the app folder. */
  readonly name: string;
  /** Who needs it, e.g. `services.db.environment.POSTGRES_PASSWORD`. */
  readonly usedBy: readonly string[];
}

/** Props of {@link SubsetSecrets}. */
export interface SubsetSecretsProps {
  /** The app folder in the guest, named in the `${VAR:?…}` messages. */
  readonly appDirectory: string;
  /** The services of the VM, whose secret env values get `.env` names. */
  readonly services: readonly ComposeService[];
  /** Whether an env value is secret. */
  readonly isSensitive: SensitiveEnvPredicate;
  /** Whether a text holds a secret. */
  readonly containsSecret: (text: string) => boolean;
  /**
   * Every secret string of the project, replaced by a `${VAR}` reference wherever it appears.
   * @default - none
   */
  readonly secretValues?: Redactor;
  /**
   * The interpolation variables of the project (`ComposeModel.variables`). An env value the compose file writes with
   * `${VAR}` references keeps them, and the variables it reads go into `.env` with their values, whatever their
   * names: no name rule decides what is written into the bundle.
   * @default - none: every value is resolved, and the name rule decides
   */
  readonly variables?: Readonly<Record<string, string>>;
}

/** An env value as the compose file writes it (`${DBPASS}`), kept with its references; never `$`-escaped. */
export class WrittenValue {
  constructor(public readonly text: string) {}
  public toString(): string {
    return this.text;
  }
}

/** A reference to a `.env` variable in the compose file; the only text that is not `$`-escaped. */
export class EnvReference {
  constructor(
    public readonly variable: string,
    public readonly appDirectory: string,
  ) {}
  public toString(): string {
    return `\${${this.variable}:?set ${this.variable} in ${this.appDirectory}/.env}`;
  }
}

/**
 * The secrets of a VM's compose project: the `.env` variables that secret values become, the secret files the app
 * folder expects, and what the operator supplies. The compose file only ever holds `${VAR:?…}` references to them.
 */
export class SubsetSecrets {
  /** Secret values by `.env` variable, for delivery into a Secret. */
  public readonly env: Record<string, string> = {};
  /** Secret files by path in the app folder, for delivery into a Secret. */
  public readonly files: Record<string, FileContent> = {};
  private readonly inputs = new Map<string, { kind: 'env' | 'file'; name: string; usedBy: Set<string> }>();
  private readonly envNames: Map<string, string>;

  constructor(private readonly props: SubsetSecretsProps) {
    this.envNames = this.planEnvNames();
  }

  /** What the operator supplies, sorted by kind and name. */
  public operatorInputs(): OperatorInput[] {
    return [...this.inputs.values()]
      .map((i) => ({ kind: i.kind, name: i.name, usedBy: [...i.usedBy].sort(compare) }))
      .sort((a, b) => compare(`${a.kind}:${a.name}`, `${b.kind}:${b.name}`));
  }

  /** Whether an env value is secret: by the predicate, or because it holds a secret. */
  public isSecretEnv(env: EnvVar, service: ComposeService): boolean {
    return this.props.isSensitive(env, service) || this.props.containsSecret(env.value);
  }

  /**
   * An env value as the compose file holds it: the text compose's file writes when it names variables (which then go
   * into `.env`), else the value, or a reference to its `.env` variable when secret.
   */
  public renderEnv(env: EnvVar, service: ComposeService): string | EnvReference | WrittenValue {
    const written = this.writtenValue(env);
    if (written) {
      for (const [name, value] of written.variables) {
        this.env[name] = value;
        this.addInput('env', name, env.at.path);
      }
      return new WrittenValue(written.text);
    }
    if (!this.isSecretEnv(env, service)) {
      return env.value;
    }
    const variable = this.envNames.get(`${service.name}\0${env.name}`)!;
    this.env[variable] = env.value;
    this.addInput('env', variable, env.at.path);
    return new EnvReference(variable, this.props.appDirectory);
  }

  /** Records a secret file the app folder expects at `path`, with its content when it is known. */
  public addFile(path: string, content: FileContent | undefined, usedBy: string): void {
    if (content) {
      this.files[path] = content;
    }
    this.addInput('file', path, usedBy);
  }

  /**
   * Escapes `$` as `$$` in every string, so compose does not interpolate values the model already resolved; a secret
   * inside a string (`--requirepass s3cret`, `password=…` in driver options, a label) becomes a `${VAR}` reference
   * instead, read from `.env` like the secret env values.
   */
  public escapeDollars(value: unknown, where: string): unknown {
    if (value instanceof EnvReference || value instanceof WrittenValue) {
      return value.toString();
    }
    if (typeof value === 'string') {
      return this.referenceSecrets(value, where);
    }
    if (Array.isArray(value)) {
      return value.map((item, i) => this.escapeDollars(item, `${where}[${i}]`));
    }
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, this.escapeDollars(v, where === '' ? k : `${where}.${k}`)]),
      );
    }
    return value;
  }

  /**
   * The written text of an env value and the variables it reads, when it can be kept: it names variables, reading
   * them gives the value the model holds (no rewrite changed it since), and its own text holds no secret.
   */
  private writtenValue(env: EnvVar): { text: string; variables: Map<string, string> } | undefined {
    const variables = this.props.variables;
    if (env.written === undefined || variables === undefined) {
      return undefined;
    }
    const written = env.written;
    const read = new Map<string, string>();
    const unset = new Set<string>();
    let value: string;
    try {
      value = interpolateString(
        written,
        (name) => {
          if (!Object.prototype.hasOwnProperty.call(variables, name)) {
            unset.add(name);
            return undefined;
          }
          read.set(name, variables[name]);
          return variables[name];
        },
        env.at,
      );
    } catch {
      return undefined;
    }
    if (
      value !== env.value ||
      this.props.containsSecret(written) ||
      embeddedPasswords(written).some((p) => !p.includes('$'))
    ) {
      return undefined;
    }
    // A variable referenced bare (`${DBPASS}`, `$DBPASS`) and not set read "" on the compose host, with a warning at
    // convert time: it goes into .env empty, so compose in the VM reads "" too without warning again. One with a
    // default or another operator stays unset, so that the operator keeps its meaning.
    for (const name of [...unset].sort(compare)) {
      if (new RegExp(`(^|[^$])\\$(\\{${name}\\}|${name}(?![A-Za-z0-9_]))`).test(written)) {
        read.set(name, '');
      }
    }
    return { text: env.written, variables: read };
  }

  /**
   * `.env` names for secret values: the variable's own name, or `<SERVICE>_<NAME>` when services disagree on it or an
   * interpolation variable of that name holds another value.
   */
  private planEnvNames(): Map<string, string> {
    const values = new Map<string, Set<string>>();
    for (const [name, value] of Object.entries(this.props.variables ?? {})) {
      values.set(name, new Set([value]));
    }
    for (const service of this.props.services) {
      for (const env of service.environment) {
        if (this.isSecretEnv(env, service) && !this.writtenValue(env)) {
          values.set(env.name, (values.get(env.name) ?? new Set()).add(env.value));
        }
      }
    }
    const names = new Map<string, string>();
    for (const service of this.props.services) {
      for (const env of service.environment) {
        if (this.isSecretEnv(env, service) && !this.writtenValue(env)) {
          const shared = values.get(env.name)!.size === 1;
          names.set(`${service.name}\0${env.name}`, shared ? env.name : `${envPrefix(service.name)}_${env.name}`);
        }
      }
    }
    return names;
  }

  private referenceSecrets(text: string, where: string): string {
    const secretValues = this.props.secretValues;
    const embedded = embeddedPasswords(text);
    if (embedded.length === 0 && !(secretValues?.hides(text) ?? false)) {
      return text.replace(/\$/g, '$$$$');
    }
    const secrets = [...(secretValues?.hiddenValues() ?? []), ...embedded]
      .filter((v) => v.length >= MIN_SCANNED_SECRET_LENGTH && text.includes(v))
      .sort((a, b) => b.length - a.length || compare(a, b));
    if (secrets.length === 0) {
      return text.replace(/\$/g, '$$$$');
    }
    // Split at the first occurrence of any secret, longest first, and work through the rest.
    let out = '';
    let rest = text;
    for (;;) {
      let at = -1;
      let found = '';
      for (const secret of secrets) {
        const index = rest.indexOf(secret);
        if (index >= 0 && (at < 0 || index < at)) {
          at = index;
          found = secret;
        }
      }
      if (at < 0) {
        return out + rest.replace(/\$/g, '$$$$');
      }
      out +=
        rest.slice(0, at).replace(/\$/g, '$$$$') +
        new EnvReference(this.secretVariable(found, where), this.props.appDirectory).toString();
      rest = rest.slice(at + found.length);
    }
  }

  /** The `.env` variable of a secret value: the one that already holds it, else a new `SECRET_<n>`. */
  private secretVariable(value: string, where: string): string {
    const existing = Object.keys(this.env)
      .sort(compare)
      .find((name) => this.env[name] === value);
    if (existing) {
      return existing;
    }
    let n = 1;
    while (this.env[`SECRET_${n}`] !== undefined) {
      n += 1;
    }
    const variable = `SECRET_${n}`;
    this.env[variable] = value;
    this.addInput('env', variable, where);
    return variable;
  }

  private addInput(kind: 'env' | 'file', name: string, usedBy: string): void {
    const key = `${kind}:${name}`;
    const input = this.inputs.get(key) ?? { kind, name, usedBy: new Set<string>() };
    input.usedBy.add(usedBy);
    this.inputs.set(key, input);
  }
}

function envPrefix(service: string): string {
  return service.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
}
