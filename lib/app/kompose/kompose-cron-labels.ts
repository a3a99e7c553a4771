import { Cron } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeError } from '../../compose/errors';
import { ComposeService } from '../../compose/model';
import { WHOLE_NUMBER, labelAt } from './kompose-label-values';
import { KomposeLabel } from '../settings';

/** kompose's `kompose.cronjob.*` labels, read and checked. */

/** The `kompose.cronjob.*` labels. */
export interface KomposeCronJob {
  readonly schedule: Cron;
  readonly concurrencyPolicy?: kplus.ConcurrencyPolicy;
  readonly backoffLimit?: number;
}

/** The `kompose.cronjob.*` labels of a service, checked; undefined when it has no schedule. */
export function readCronJob(service: ComposeService): KomposeCronJob | undefined {
  const at = (key: string) => labelAt(service, key);
  const scheduleText = service.labels[KomposeLabel.CRON_SCHEDULE]?.trim();
  const policyText = service.labels[KomposeLabel.CRON_CONCURRENCY_POLICY]?.trim();
  const backoffText = service.labels[KomposeLabel.CRON_BACKOFF_LIMIT]?.trim();
  if (scheduleText === undefined) {
    const orphan =
      policyText !== undefined
        ? KomposeLabel.CRON_CONCURRENCY_POLICY
        : backoffText !== undefined
          ? KomposeLabel.CRON_BACKOFF_LIMIT
          : undefined;
    if (orphan) {
      throw new ComposeError(`${orphan} needs ${KomposeLabel.CRON_SCHEDULE}`, {
        at: at(orphan),
        hint: `add ${KomposeLabel.CRON_SCHEDULE} (e.g. "0 3 * * *") to run the service as a CronJob, or remove ${orphan}`,
      });
    }
    return undefined;
  }
  const schedule = parseCronSchedule(scheduleText);
  if (typeof schedule === 'string') {
    throw new ComposeError(`invalid schedule: ${schedule}`, {
      at: at(KomposeLabel.CRON_SCHEDULE),
      value: scheduleText,
      allowed:
        'five fields (minute hour day-of-month month day-of-week), e.g. "*/15 * * * *", or @hourly, @daily, @weekly, @monthly, @yearly',
    });
  }
  let concurrencyPolicy: kplus.ConcurrencyPolicy | undefined;
  if (policyText !== undefined) {
    concurrencyPolicy = Object.values(kplus.ConcurrencyPolicy).find(
      (p) => p.toLowerCase() === policyText.toLowerCase(),
    );
    if (!concurrencyPolicy) {
      throw new ComposeError('invalid concurrency policy', {
        at: at(KomposeLabel.CRON_CONCURRENCY_POLICY),
        value: policyText,
        allowed: Object.values(kplus.ConcurrencyPolicy).join(', '),
      });
    }
  }
  let backoffLimit: number | undefined;
  if (backoffText !== undefined) {
    backoffLimit = WHOLE_NUMBER.test(backoffText) ? Number(backoffText) : NaN;
    if (!(backoffLimit >= 0 && backoffLimit <= 2 ** 31 - 1)) {
      throw new ComposeError('invalid backoff limit', {
        at: at(KomposeLabel.CRON_BACKOFF_LIMIT),
        value: backoffText,
        allowed: 'a whole number of retries, 0 or more',
      });
    }
  }
  return { schedule, concurrencyPolicy, backoffLimit };
}

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const CRON_FIELDS: ReadonlyArray<{ name: string; min: number; max: number; names?: readonly string[] }> = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  },
  { name: 'day of week', min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

/**
 * A CronJob schedule as Kubernetes reads it: five fields, each `*`, `?`, numbers or names, ranges `a-b`, steps `/n`
 * and lists `,`, within the field's range; or a descriptor such as `@daily` (written out as its five fields).
 * Returns the problem as text when the schedule is invalid.
 */
export function parseCronSchedule(text: string): Cron | string {
  const expanded = DESCRIPTORS[text.toLowerCase()] ?? text;
  if (expanded.startsWith('@')) {
    return `unknown descriptor "${text}"`;
  }
  const fields = expanded.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) {
    return `expected 5 fields, got ${fields.length}`;
  }
  for (let i = 0; i < 5; i++) {
    const field = CRON_FIELDS[i];
    const value = (word: string): number => {
      const named = field.names?.indexOf(word.toLowerCase()) ?? -1;
      return named >= 0 ? named + field.min : WHOLE_NUMBER.test(word) ? Number(word) : NaN;
    };
    for (const item of fields[i].split(',')) {
      const match = /^(\*|\?|[0-9A-Za-z]+)(?:-([0-9A-Za-z]+))?(?:\/(\d+))?$/.exec(item);
      if (!match) {
        return `the ${field.name} field "${fields[i]}" is not a cron field`;
      }
      const bounds =
        match[1] === '*' || match[1] === '?' ? [] : [match[1], match[2]].filter((w): w is string => w !== undefined);
      for (const word of bounds) {
        const n = value(word);
        if (Number.isNaN(n)) {
          return `"${word}" is not a number${field.names ? ' or a name' : ''} in the ${field.name} field`;
        }
        if (!(n >= field.min && n <= field.max)) {
          return `${word} is out of range for the ${field.name} (${field.min}-${field.max})`;
        }
      }
      if (match[3] !== undefined && Number(match[3]) === 0) {
        return `the step in the ${field.name} field "${fields[i]}" is 0`;
      }
    }
  }
  return Cron.schedule({ minute: fields[0], hour: fields[1], day: fields[2], month: fields[3], weekDay: fields[4] });
}
