import { Construct } from 'constructs';
import { KubeSecret } from '../../imports/k8s';
import { ComposeError } from '../compose/errors';
import { FileContent } from '../compose/model';
import { compare } from '../util/sort';
import { objectMeta } from './vm-names';

/** Props of {@link appSecret}. */
export interface AppSecretProps {
  /** The Secret's name. */
  readonly name: string;
  readonly namespace?: string;
  /** The app folder's `.env` variables and their values. */
  readonly env: Readonly<Record<string, string>>;
  /** Secret files by path in the app folder. */
  readonly files: Readonly<Record<string, FileContent>>;
}

/**
 * The Secret (id `AppSecrets` in `scope`) that the VM reads as a disk at every start: key `env` is the app folder's
 * `.env`, keys `file-<n>` the secret files, and key `files` lists `file-<n> <mode> <path>` for the guest's unit
 * (`loadSecretsScript`). Undefined when there is nothing to deliver.
 */
export function appSecret(scope: Construct, props: AppSecretProps): KubeSecret | undefined {
  const data = appSecretData(props.env, props.files);
  if (Object.keys(data).length === 0) {
    return undefined;
  }
  return new KubeSecret(scope, 'AppSecrets', {
    metadata: objectMeta(props.name, props.namespace),
    type: 'Opaque',
    data,
  });
}

/** The Secret's data, base64: `env`, `files` and `file-<n>`. */
export function appSecretData(
  env: Readonly<Record<string, string>>,
  files: Readonly<Record<string, FileContent>>,
): Record<string, string> {
  const data: Record<string, string> = {};
  const variables = Object.entries(env).sort(([a], [b]) => compare(a, b));
  if (variables.length > 0) {
    const text = variables.map(([key, value]) => `${key}=${dotenvQuote(key, value)}`).join('\n') + '\n';
    data.env = Buffer.from(text, 'utf-8').toString('base64');
  }
  const list: string[] = [];
  Object.entries(files)
    .sort(([a], [b]) => compare(a, b))
    .forEach(([path, content], index) => {
      if (/[\n\r]/.test(path) || path.startsWith('/') || path.split('/').includes('..')) {
        throw new ComposeError(
          `the secret file "${JSON.stringify(path).slice(1, -1)}" cannot be written into the app folder`,
          {
            allowed: 'a relative path inside the app folder, on one line',
            hint: 'rename the file in the compose file',
          },
        );
      }
      const key = `file-${index + 1}`;
      list.push(`${key} 0644 ${path}`);
      data[key] = content.binary ? content.text : Buffer.from(content.text, 'utf-8').toString('base64');
    });
  if (list.length > 0) {
    data.files = Buffer.from(list.join('\n') + '\n', 'utf-8').toString('base64');
  }
  return data;
}

/** A `.env` value compose reads back unchanged: single quotes are literal; otherwise double quotes with escapes. */
export function dotenvQuote(key: string, value: string): string {
  if (!value.includes("'") && !value.includes('\n')) {
    return `'${value}'`;
  }
  if (value.includes('\n') && value.includes("'")) {
    throw new ComposeError(
      `the secret value of ${key} holds both a quote and a line break, which a .env file cannot carry`,
      { hint: 'deliver it as a compose secret (a file) instead' },
    );
  }
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\$/g, '\\$').replace(/\n/g, '\\n')}"`;
}
