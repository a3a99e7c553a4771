import { parseCronSchedule } from '../../../lib/app/kompose/kompose-cron-labels';
import { cronScheduleProblem } from '../../support/cron';

describe('parseCronSchedule', () => {
  test.each([
    '* * * * *',
    '*/15 0-6 1,15 JAN-mar mon-FRI',
    '0 3 * * 0',
    '5 4 ? * sun',
    '@hourly',
    '@DAILY',
    '@weekly',
    '@monthly',
    '@yearly',
    '@annually',
    '@midnight',
  ])('accepts %s, as Kubernetes does', (schedule) => {
    const cron = parseCronSchedule(schedule);
    expect(typeof cron).toBe('object');
    expect(cronScheduleProblem(typeof cron === 'string' ? cron : cron.expressionString)).toBeUndefined();
  });

  test('writes descriptors out as their five fields', () => {
    expect((parseCronSchedule('@weekly') as any).expressionString).toBe('0 0 * * 0');
  });

  test.each([
    ['* * * *', 'expected 5 fields, got 4'],
    ['0 24 * * *', '24 is out of range for the hour (0-23)'],
    ['0 0 0 * *', '0 is out of range for the day of month (1-31)'],
    ['0 0 * 13 *', '13 is out of range for the month (1-12)'],
    ['0 0 * * 7', '7 is out of range for the day of week (0-6)'],
    ['*/0 * * * *', 'the step in the minute field "*/0" is 0'],
    ['0 0 * * funday', '"funday" is not a number or a name in the day of week field'],
    ['0 0 * * 1#2', 'the day of week field "1#2" is not a cron field'],
    ['@every 1h', 'unknown descriptor "@every 1h"'],
  ])('refuses %s (%s), as Kubernetes does', (schedule, problem) => {
    expect(parseCronSchedule(schedule)).toBe(problem);
    if (!schedule.startsWith('@every')) {
      expect(cronScheduleProblem(schedule)).toBeDefined();
    }
  });
});
