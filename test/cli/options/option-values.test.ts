import { metadataPairs, pairs, parseDuration, quotaChoice } from '../../../lib/cli/options/option-values';

test('durations', () => {
  expect(parseDuration('300', '--timeout')).toBe(300);
  expect(parseDuration('300s', '--timeout')).toBe(300);
  expect(parseDuration('5m', '--timeout')).toBe(300);
  expect(parseDuration('1h2m3s', '--timeout')).toBe(3723);
  expect(() => parseDuration('0s', '--timeout')).toThrow('--timeout "0s" is not a duration');
  // The one duration parser: compose's forms are accepted here too.
  expect(parseDuration('500ms', '--timeout')).toBe(0.5);
  expect(parseDuration('1.5h', '--timeout')).toBe(5400);
  for (const bad of ['', '-5s', '5x', 'soon', '0']) {
    expect(() => parseDuration(bad, '--timeout')).toThrow(`--timeout "${bad}" is not a duration`);
  }
});

test('--quota: on, off, or amounts by key', () => {
  expect(quotaChoice(undefined, 'convert')).toBe(true);
  expect(quotaChoice('OFF', 'convert')).toBe(false);
  expect(quotaChoice('limits.memory=16Gi, requests.cpu=500m', 'convert')).toEqual({
    'limits.memory': '16Gi',
    'requests.cpu': '500m',
  });
  expect(() => quotaChoice('limits.memory=0Gi', 'convert')).toThrow('--quota limits.memory="0Gi" is not an amount');
  expect(() => quotaChoice('pods=3', 'convert')).toThrow('--quota "pods=3": unknown key');
});

test('K=V pairs: later items merge, a key given twice with another value is refused', () => {
  expect(pairs(['web=nginx:1', 'api=shop/api:2', 'web=nginx:1'], '--image', 'SERVICE=REF', 'convert')).toEqual({
    web: 'nginx:1',
    api: 'shop/api:2',
  });
  expect(() => pairs(['web=a', 'web=b'], '--image', 'SERVICE=REF', 'convert')).toThrow('--image gives web twice');
  expect(metadataPairs(['team=shop,example.com/tier=web'], '--labels', 'convert')).toEqual({
    'team': 'shop',
    'example.com/tier': 'web',
  });
  expect(() => metadataPairs(['kubevirt.io/vm=x'], '--labels', 'convert')).toThrow(
    '--labels: "kubevirt.io/vm" is set by cdk8s-compose',
  );
});
