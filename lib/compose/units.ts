/**
 * Compose's units, normalised as the model wants them: durations in seconds, sizes in bytes, cpus in cores.
 * Each parser returns undefined for text it cannot read; the caller raises the `ComposeError` with the location.
 */

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

/**
 * A Go duration as compose writes it (`1m30s`, `500ms`, `1.5h`, `0`), in seconds. Negative durations are refused.
 * Rounded to the nanosecond so `0.1s` stays 0.1.
 */
export function parseDuration(text: string): number | undefined {
  const value = text.trim();
  if (value === '0') {
    return 0;
  }
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let pos = 0;
  let total = 0;
  while (pos < value.length) {
    part.lastIndex = pos;
    const match = part.exec(value);
    if (!match) {
      return undefined;
    }
    total += Number(match[1]) * DURATION_UNITS[match[2]];
    pos = part.lastIndex;
  }
  if (pos === 0) {
    return undefined;
  }
  return Math.round(total * 1e9) / 1e9;
}

const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  'k': 1024,
  'm': 1024 ** 2,
  'g': 1024 ** 3,
  't': 1024 ** 4,
  'p': 1024 ** 5,
};

/**
 * A size as compose reads it (docker's RAMInBytes): a bare number of bytes, or a number with `b`, `k`, `m`, `g`,
 * `t`, `p`, optionally followed by `b` or `ib`, any case, all binary (`512m` = 512 MiB, `10000Mb` = 10000 MiB).
 */
export function parseSize(value: number | string): number | undefined {
  if (typeof value === 'number') {
    return Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
  }
  const match = /^(\d+(?:\.\d+)?) ?([kKmMgGtTpP])?[iI]?[bB]?$/.exec(value.trim());
  if (!match) {
    return undefined;
  }
  return Math.floor(Number(match[1]) * SIZE_UNITS[(match[2] ?? '').toLowerCase()]);
}

/** CPU cores as compose reads them: a number or a numeric string such as `0.5`; never negative. */
export function parseCpus(value: number | string): number | undefined {
  const cores = typeof value === 'number' ? value : /^\d+(\.\d+)?$|^\.\d+$/.test(value.trim()) ? Number(value) : NaN;
  return Number.isFinite(cores) && cores >= 0 ? cores : undefined;
}
