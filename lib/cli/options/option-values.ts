import { parseDuration as parseComposeDuration } from '../../compose/units';
import { isDnsSubdomain } from '../../util/dns';
import type { Values } from './option-scan';
import { UsageError } from './usage-error';

// The checks of option values: each turns the text given into what the command uses, or throws a UsageError that
// names the option, quotes the value and says what is allowed.

/** The `spec.hard` keys `--quota` may give. */
export const QUOTA_KEYS = [
  'requests.cpu',
  'requests.memory',
  'limits.cpu',
  'limits.memory',
  'persistentvolumeclaims',
] as const;
export type QuotaKeyName = (typeof QUOTA_KEYS)[number];

/** `on`/`off` (also `true`/`false`) of a switch, or undefined when it is not given. */
export function onOff(value: Values[string], flag: string, command: string): boolean | undefined {
  const text = optionalString(value);
  if (text === undefined) {
    return undefined;
  }
  const lower = text.toLowerCase();
  if (lower === 'on' || lower === 'true') {
    return true;
  }
  if (lower === 'off' || lower === 'false') {
    return false;
  }
  throw new UsageError(`${flag} "${text}" is not allowed. Allowed: on, off`, command);
}

/** `--quota`: on, off, or `KEY=AMOUNT,…` by the ResourceQuota's `spec.hard` keys. */
export function quotaChoice(
  text: string | undefined,
  command: string,
): boolean | Partial<Record<QuotaKeyName, string>> {
  if (text === undefined || !text.includes('=')) {
    if (text !== undefined && !/^(on|off|true|false)$/i.test(text)) {
      throw new UsageError(
        `--quota "${text}" is not allowed. Allowed: on, off, or KEY=AMOUNT,… with the keys ${QUOTA_KEYS.join(', ')}`,
        command,
      );
    }
    return onOff(text, '--quota', command) ?? true;
  }
  const amounts: Partial<Record<QuotaKeyName, string>> = {};
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim() as QuotaKeyName;
    const amount = part.slice(eq + 1).trim();
    if (eq <= 0 || !QUOTA_KEYS.includes(key)) {
      throw new UsageError(
        `--quota "${part}": unknown key. Allowed: ${QUOTA_KEYS.join(', ')} (as KEY=AMOUNT, comma-separated), or on, off`,
        command,
      );
    }
    const shape =
      key === 'persistentvolumeclaims'
        ? /^[1-9]\d*$/
        : key.endsWith('cpu')
          ? /^\d+(\.\d+)?m?$/
          : /^\d+(\.\d+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
    if (!shape.test(amount) || /^0+(\.0+)?[a-zA-Z]*$/.test(amount)) {
      throw new UsageError(
        `--quota ${key}="${amount}" is not an amount. Allowed: ${
          key === 'persistentvolumeclaims'
            ? 'a whole number above 0'
            : key.endsWith('cpu')
              ? 'cores or millicores above 0, e.g. 4, 1.5 or 500m'
              : 'a memory size above 0, e.g. 16Gi or 512Mi'
        }`,
        command,
      );
    }
    if (amounts[key] !== undefined && amounts[key] !== amount) {
      throw new UsageError(`--quota gives ${key} twice`, command);
    }
    amounts[key] = amount;
  }
  return amounts;
}

/** `--registry`, checked as the loader checks it, so that a bad value is a usage error. */
export function registryOption(value: string | undefined, command: string): string | undefined {
  if (value === undefined) {
    return undefined;
  }
  try {
    // The loader is loaded only when the option is given: the option parser stays light for --help and usage errors.
    return (require('../../compose/load') as typeof import('../../compose/load')).checkRegistry(value);
  } catch {
    throw new UsageError(
      `--registry "${value}" is not HOST[/PATH]. Allowed: a registry host with an optional port and path, ` +
        'such as registry.example.com/shop or localhost:5000',
      command,
    );
  }
}

export function list(value: Values[string]): string[] {
  return Array.isArray(value) ? value : [];
}

export function optionalString(value: Values[string]): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `a=b` items of repeatable options, one pair each. */
export function pairs(items: readonly string[], flag: string, shape: string, command: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0 || eq === item.length - 1) {
      throw new UsageError(`${flag} "${item}" is not ${shape}`, command);
    }
    const key = item.slice(0, eq);
    if (key in result && result[key] !== item.slice(eq + 1)) {
      throw new UsageError(`${flag} gives ${key} twice`, command);
    }
    result[key] = item.slice(eq + 1);
  }
  return result;
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;
/** Labels that selectors and network policies rely on; overriding them would cut pods off their Services. */
const RESERVED_LABELS = ['app', 'name'];
const RESERVED_PREFIXES = ['network.cdk8s-compose.io/', 'kubevirt.io/'];

/** `k=v,k=v` items of `--labels` / `--annotations`, checked against Kubernetes' key and value rules. */
export function metadataPairs(
  items: readonly string[],
  flag: '--labels' | '--annotations' | '--ingress-controller-pod-labels',
  command: string,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of items) {
    for (const part of item.split(',')) {
      const eq = part.indexOf('=');
      if (eq <= 0) {
        throw new UsageError(`${flag} "${part}" is not K=V (write ${flag} k=v,k=v)`, command);
      }
      const key = part.slice(0, eq).trim();
      const value = part.slice(eq + 1).trim();
      const slash = key.lastIndexOf('/');
      const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
      const name = slash >= 0 ? key.slice(slash + 1) : key;
      if (!QUALIFIED_NAME.test(name) || (prefix !== undefined && (!isDnsSubdomain(prefix) || prefix.length > 253))) {
        throw new UsageError(
          `${flag}: "${key}" is not a Kubernetes key. Allowed: an optional DNS prefix and "/", then 1-63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`,
          command,
        );
      }
      if (flag !== '--annotations' && !LABEL_VALUE.test(value)) {
        throw new UsageError(
          `${flag}: the value of "${key}" ("${value}") is not a label value. Allowed: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`,
          command,
        );
      }
      if (flag === '--labels' && (RESERVED_LABELS.includes(key) || RESERVED_PREFIXES.some((p) => key.startsWith(p)))) {
        throw new UsageError(
          `--labels: "${key}" is set by cdk8s-compose (Service selectors and network policies use it). Fix: use another key`,
          command,
        );
      }
      if (key in result && result[key] !== value) {
        throw new UsageError(`${flag} gives "${key}" twice`, command);
      }
      result[key] = value;
    }
  }
  return result;
}

/**
 * A whole number of seconds (`300`), or a duration as compose writes it (`300s`, `5m`, `1m30s`, `500ms`, `1.5h`:
 * `parseDuration` of lib/compose/units, the one duration parser) → seconds.
 */
export function parseDuration(text: string, flag: string, command?: string): number {
  const seconds = /^\d+$/.test(text) ? Number(text) : parseComposeDuration(text);
  if (seconds === undefined || !(seconds > 0)) {
    throw new UsageError(
      `${flag} "${text}" is not a duration. Allowed: a positive number of seconds, or e.g. 300s, 5m, 1h`,
      command,
    );
  }
  return seconds;
}

/** `--external SERVICE=HOST[:PORT]` (an IPv6 address in brackets: `[fd00::7]:5432`), by service. */
export function externalEndpoints(
  items: readonly string[],
  command: string,
): Record<string, { readonly host: string; readonly port?: number }> {
  const result: Record<string, { host: string; port?: number }> = {};
  for (const [service, text] of Object.entries(pairs(items, '--external', 'SERVICE=HOST[:PORT]', command))) {
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(text);
    if (!match) {
      throw new UsageError(
        `--external ${service}=${text}: "${text}" is not HOST[:PORT]. Allowed: a host name or IP address, an optional ` +
          'port after ":", an IPv6 address in brackets ([fd00::7]:5432)',
        command,
      );
    }
    const host = match[1] ?? match[2];
    result[service] = match[3] !== undefined ? { host, port: Number(match[3]) } : { host };
  }
  return result;
}
