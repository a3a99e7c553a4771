/**
 * CronJob schedules as Kubernetes 1.27 parses them: github.com/robfig/cron/v3 `ParseStandard`, i.e. five fields
 * (minute hour day-of-month month day-of-week) or a descriptor (`@daily`, `@every 1h30m`, …).
 */

interface Field {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: Record<string, number>;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const FIELDS: Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: Object.fromEntries(MONTHS.map((m, i) => [m, i + 1])) },
  { name: 'day of week', min: 0, max: 6, names: Object.fromEntries(DAYS.map((d, i) => [d, i])) },
];

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/** Why `schedule` is not a valid schedule, or undefined when it is. */
export function cronScheduleProblem(schedule: string): string | undefined {
  const text = schedule.trim();
  if (/^(CRON_)?TZ=/.test(text)) {
    return 'a time zone in the schedule (TZ= or CRON_TZ=) is not supported (rejected from Kubernetes 1.29); set spec.timeZone instead';
  }
  if (text.startsWith('@')) {
    return descriptorProblem(text);
  }
  const fields = text.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) {
    return `expected 5 fields (minute hour day-of-month month day-of-week) or a descriptor such as @daily, got ${fields.length}`;
  }
  for (let i = 0; i < 5; i++) {
    for (const range of fields[i].split(',')) {
      const problem = rangeProblem(range, FIELDS[i]);
      if (problem) {
        return `${FIELDS[i].name} field "${fields[i]}": ${problem}`;
      }
    }
  }
  return undefined;
}

function descriptorProblem(text: string): string | undefined {
  if (DESCRIPTORS.includes(text)) {
    return undefined;
  }
  const every = /^@every\s+(\S+)$/.exec(text);
  if (every) {
    const seconds = goDurationSeconds(every[1]);
    if (seconds === undefined) {
      return `"${every[1]}" is not a duration such as 90s, 15m or 1h30m`;
    }
    return seconds > 0 ? undefined : 'the interval of @every must be positive';
  }
  return `unknown descriptor; allowed: ${DESCRIPTORS.join(', ')}, @every <duration>`;
}

function rangeProblem(range: string, field: Field): string | undefined {
  const rangeAndStep = range.split('/');
  if (rangeAndStep.length > 2) {
    return `too many slashes in "${range}"`;
  }
  const lowAndHigh = rangeAndStep[0].split('-');
  if (lowAndHigh.length > 2) {
    return `too many hyphens in "${range}"`;
  }
  let start: number | undefined;
  let end: number | undefined;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = field.min;
    end = field.max;
  } else {
    start = value(lowAndHigh[0], field);
    end = lowAndHigh.length === 2 ? value(lowAndHigh[1], field) : start;
    if (start === undefined || end === undefined) {
      const bad = start === undefined ? lowAndHigh[0] : lowAndHigh[1];
      const names = field.names ? ` or a name (${Object.keys(field.names).join(', ')})` : '';
      return `"${bad}" is not a number${names}`;
    }
  }
  if (rangeAndStep.length === 2) {
    const step = /^[0-9]+$/.test(rangeAndStep[1]) ? Number(rangeAndStep[1]) : undefined;
    if (step === undefined || step === 0) {
      return `step "${rangeAndStep[1]}" must be a positive number`;
    }
    // `5/15` means 5 to the maximum, every 15.
    if (lowAndHigh.length === 1 && lowAndHigh[0] !== '*' && lowAndHigh[0] !== '?') {
      end = field.max;
    }
  }
  if (start < field.min) {
    return `${start} is below the minimum ${field.min}`;
  }
  if (end > field.max) {
    return `${end} is above the maximum ${field.max}`;
  }
  if (start > end) {
    return `the range "${rangeAndStep[0]}" starts after it ends`;
  }
  return undefined;
}

function value(text: string, field: Field): number | undefined {
  const named = field.names?.[text.toLowerCase()];
  if (named !== undefined) {
    return named;
  }
  return /^[0-9]+$/.test(text) ? Number(text) : undefined;
}

const UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, μs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Go's time.ParseDuration, in seconds; undefined when the text is not a Go duration. */
function goDurationSeconds(text: string): number | undefined {
  if (text === '0') {
    return 0;
  }
  const match = /^([+-]?)((?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+)$/.exec(text);
  if (!match) {
    return undefined;
  }
  let seconds = 0;
  for (const part of match[2].matchAll(/([0-9]*\.?[0-9]*)(ns|us|µs|μs|ms|s|m|h)/g)) {
    seconds += Number(part[1]) * UNIT_SECONDS[part[2]];
  }
  return match[1] === '-' ? -seconds : seconds;
}
