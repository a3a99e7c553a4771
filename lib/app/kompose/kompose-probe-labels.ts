import { ComposeError } from '../../compose/errors';
import { ComposeLocation, ComposeService } from '../../compose/model';
import { shellSplit } from '../../compose/shell-split';
import { parseDuration } from '../../compose/units';
import { WHOLE_NUMBER, labelAt, labelPort as port } from './kompose-label-values';

/** kompose's `kompose.service.healthcheck.<readiness|liveness>.*` labels, read and checked. */

/** What a probe runs, from `test`, `http_get_path`/`http_get_port` or `tcp_port`. */
export type KomposeProbeCheck =
  | { readonly kind: 'exec'; readonly command: readonly string[] }
  | { readonly kind: 'http'; readonly path: string; readonly port?: number }
  | { readonly kind: 'tcp'; readonly port: number };

/** The `kompose.service.healthcheck.<readiness|liveness>.*` labels of one probe. */
export interface KomposeProbeLabels {
  /** `disable: true`: no such probe at all. */
  readonly disabled: boolean;
  readonly check?: KomposeProbeCheck;
  readonly periodSeconds?: number;
  readonly timeoutSeconds?: number;
  readonly failureThreshold?: number;
  /** From `start_period`, as kompose maps it. */
  readonly initialDelaySeconds?: number;
  /** The labels' common prefix, `kompose.service.healthcheck.readiness`. */
  readonly prefix: string;
  /** Where the labels are, for messages. */
  readonly at: ComposeLocation;
}

/** The keys of one probe's labels, `kompose.service.healthcheck.<probe>.<key>`. */
export const PROBE_KEYS = [
  'disable',
  'http_get_path',
  'http_get_port',
  'interval',
  'retries',
  'start_period',
  'tcp_port',
  'test',
  'timeout',
];
/** The prefix of the healthcheck labels. */
export const PROBE_PREFIX = 'kompose.service.healthcheck.';
const PROBE_LABEL = /^kompose\.service\.healthcheck\.(readiness|liveness)\.([a-z_]+)$/;

/** The labels of one probe of a service, checked; undefined when it has none. */
export function readProbe(service: ComposeService, probe: 'readiness' | 'liveness'): KomposeProbeLabels | undefined {
  const keys = Object.keys(service.labels)
    .sort()
    .filter((key) => key.startsWith(`${PROBE_PREFIX}${probe}.`));
  if (keys.length === 0) {
    return undefined;
  }
  const label = (key: string) => `${PROBE_PREFIX}${probe}.${key}`;
  const at = (key: string) => labelAt(service, label(key));
  const values: Record<string, string> = {};
  for (const key of keys) {
    const name = PROBE_LABEL.exec(key)?.[2];
    if (name === undefined || !PROBE_KEYS.includes(name)) {
      throw new ComposeError(`unknown ${probe} label "${key}"`, {
        at: labelAt(service, key),
        allowed: PROBE_KEYS.map(label).join(', '),
        hint: 'fix the spelling or remove the label',
      });
    }
    values[name] = service.labels[key].trim();
  }
  let disabled = false;
  if (values.disable !== undefined) {
    const flag = values.disable.toLowerCase();
    if (!['true', 'false', '1', '0'].includes(flag)) {
      throw new ComposeError('invalid flag', { at: at('disable'), value: values.disable, allowed: 'true or false' });
    }
    disabled = flag === 'true' || flag === '1';
  }
  const checks: KomposeProbeCheck[] = [];
  if (values.test !== undefined) {
    const command = probeCommand(values.test, at('test'));
    if (command === 'NONE') {
      disabled = true;
    } else {
      checks.push({ kind: 'exec', command });
    }
  }
  if (values.http_get_path !== undefined) {
    if (!values.http_get_path.startsWith('/')) {
      throw new ComposeError('invalid HTTP path', {
        at: at('http_get_path'),
        value: values.http_get_path,
        allowed: 'a path starting with "/"',
      });
    }
    checks.push({
      kind: 'http',
      path: values.http_get_path,
      port: values.http_get_port === undefined ? undefined : port(values.http_get_port, at('http_get_port')),
    });
  } else if (values.http_get_port !== undefined) {
    throw new ComposeError(`${label('http_get_port')} needs ${label('http_get_path')}`, {
      at: at('http_get_port'),
      value: values.http_get_port,
      hint: `add ${label('http_get_path')}, e.g. /health`,
    });
  }
  if (values.tcp_port !== undefined) {
    checks.push({ kind: 'tcp', port: port(values.tcp_port, at('tcp_port')) });
  }
  if (checks.length > 1) {
    throw new ComposeError(`the ${probe} labels name ${checks.length} checks`, {
      at: at(checks[1].kind === 'http' ? 'http_get_path' : 'tcp_port'),
      allowed: `one of ${label('test')}, ${label('http_get_path')} or ${label('tcp_port')}`,
      hint: 'remove all but one',
    });
  }
  const seconds = (key: string, minimum: number): number | undefined => {
    if (values[key] === undefined) {
      return undefined;
    }
    const parsed = parseDuration(values[key]);
    if (parsed === undefined) {
      throw new ComposeError('invalid duration', {
        at: at(key),
        value: values[key],
        allowed: 'a duration such as 10s, 1m30s or 500ms',
      });
    }
    return Math.max(minimum, Math.ceil(parsed));
  };
  let failureThreshold: number | undefined;
  if (values.retries !== undefined) {
    failureThreshold = WHOLE_NUMBER.test(values.retries) ? Number(values.retries) : NaN;
    if (!(failureThreshold >= 1 && failureThreshold <= 2 ** 31 - 1)) {
      throw new ComposeError('invalid retries', {
        at: at('retries'),
        value: values.retries,
        allowed: 'a whole number, 1 or more',
      });
    }
  }
  return {
    disabled,
    check: checks[0],
    periodSeconds: seconds('interval', 1),
    timeoutSeconds: seconds('timeout', 1),
    failureThreshold,
    initialDelaySeconds: seconds('start_period', 0),
    prefix: `${PROBE_PREFIX}${probe}`,
    at: labelAt(service, `${PROBE_PREFIX}${probe}`),
  };
}

/**
 * The argv of a `test` label, as compose reads a healthcheck test: `CMD a b` runs `a b`, `CMD-SHELL …` and any other
 * string run through `sh -c`, `NONE` turns the probe off; a JSON list (`["CMD", "curl", "-f", "…"]`) is read the
 * same way.
 */
function probeCommand(value: string, at: ComposeLocation): string[] | 'NONE' {
  let words: string[] | undefined;
  if (value.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed) && parsed.length > 0 && parsed.every((w) => typeof w === 'string')) {
        words = parsed as string[];
      }
    } catch {
      words = undefined;
    }
    if (!words) {
      throw new ComposeError('invalid probe test', {
        at,
        value,
        allowed: 'a command, or a JSON list of strings such as ["CMD", "curl", "-f", "http://localhost/"]',
      });
    }
    if (words[0] === 'NONE') {
      return 'NONE';
    }
    if (words[0] === 'CMD-SHELL') {
      return ['sh', '-c', words.slice(1).join(' ')];
    }
    return words[0] === 'CMD' ? words.slice(1) : words;
  }
  if (value === 'NONE') {
    return 'NONE';
  }
  if (/^CMD\s/.test(value)) {
    words = shellSplit(value.slice(3).trim());
    if (!words || words.length === 0) {
      throw new ComposeError('invalid probe test', { at, value, allowed: 'CMD followed by a command, quotes closed' });
    }
    return words;
  }
  const script = /^CMD-SHELL\s/.test(value) ? value.slice('CMD-SHELL'.length).trim() : value;
  if (script === '') {
    throw new ComposeError('empty probe test', { at, allowed: 'a command' });
  }
  return ['sh', '-c', script];
}
