// A service's `healthcheck:`.
import { HEALTHCHECK_KEYS } from './keys';
import { Healthcheck } from './model';
import { durationOf, nonNull, optional } from './normalize-context';
import { asInt, asMap, asSeq, asText, checkKeys, invalid, isNull, optionalBool, Warn } from './read';
import { YNode } from './yaml';

export function normalizeHealthcheck(node: YNode | undefined, warn: Warn): Healthcheck | undefined {
  if (node === undefined) {
    return undefined;
  }
  const map = asMap(node, { allowed: 'a map with test, interval, timeout, retries, start_period' });
  checkKeys(map, HEALTHCHECK_KEYS, 'healthcheck', warn);
  let disabled = optionalBool(map.entries.get('disable'), false);
  let test: Healthcheck['test'];
  const testNode = map.entries.get('test');
  const allowed = '["CMD", "arg", ...], ["CMD-SHELL", "script"], ["NONE"], or a shell script string';
  if (!isNull(testNode)) {
    if (testNode!.kind === 'scalar' && typeof testNode!.value === 'string') {
      test = { kind: 'shell', command: [testNode!.value] };
    } else {
      const words = asSeq(testNode!, { allowed }).items.map((item) => asText(item, { allowed }));
      const [kind, ...rest] = words;
      if (kind === 'NONE') {
        disabled = true;
      } else if (kind === 'CMD' && rest.length > 0) {
        test = { kind: 'exec', command: rest };
      } else if (kind === 'CMD-SHELL' && rest.length > 0) {
        test = { kind: 'shell', command: [rest.join(' ')] };
      } else {
        throw invalid(testNode!, 'invalid healthcheck test', {
          allowed,
          hint: 'start the list with CMD (then the arguments) or CMD-SHELL (then one script)',
        });
      }
    }
  }
  const retriesNode = map.entries.get('retries');
  return {
    disabled,
    ...optional('test', disabled ? undefined : test),
    ...optional('intervalSeconds', durationOf(nonNull(map.entries.get('interval')))),
    ...optional('timeoutSeconds', durationOf(nonNull(map.entries.get('timeout')))),
    ...optional('retries', isNull(retriesNode) ? undefined : asInt(retriesNode!, 0, 1_000_000)),
    ...optional('startPeriodSeconds', durationOf(nonNull(map.entries.get('start_period')))),
    ...optional('startIntervalSeconds', durationOf(nonNull(map.entries.get('start_interval')))),
    at: map.at,
  };
}
