import { ComposeError } from '../../lib/compose/errors';
import {
  NameRegistry,
  isDnsLabel,
  isServiceName,
  joinDnsLabel,
  portName,
  toDnsLabel,
  toServiceName,
} from '../../lib/base/naming';

describe('toDnsLabel', () => {
  test.each([
    ['web', 'web'],
    ['plausible_db', 'plausible-db'],
    ['openWebUI', 'openwebui'],
    ['My.Service__2', 'my-service-2'],
    ['_leading_', 'leading'],
    ['a'.repeat(70), 'a'.repeat(63)],
    ['---', ''],
  ])('%s → %s', (name, label) => {
    expect(toDnsLabel(name)).toBe(label);
  });

  test('results are valid DNS-1123 labels', () => {
    for (const name of ['plausible_events_db', 'serviceA', 'x.y.z', `${'b'.repeat(62)}_c`]) {
      expect(isDnsLabel(toDnsLabel(name))).toBe(true);
    }
  });
});

test('Service names start with a letter (DNS-1035)', () => {
  expect(toServiceName('2fa')).toBe('s-2fa');
  expect(toServiceName('web_2')).toBe('web-2');
  expect(isServiceName('2fa')).toBe(false);
  expect(isServiceName('s-2fa')).toBe(true);
});

describe('joinDnsLabel', () => {
  test('keeps the suffix and shortens the base to 63 characters', () => {
    const joined = joinDnsLabel('x'.repeat(63), 'backup');
    expect(joined).toHaveLength(63);
    expect(joined.endsWith('-backup')).toBe(true);
  });

  test('does not leave a "-" before the suffix', () => {
    expect(joinDnsLabel(`${'a'.repeat(58)}-bbbbbbb`, 'env')).toBe(`${'a'.repeat(58)}-env`);
  });
});

test('portName is an IANA service name', () => {
  expect(portName('tcp', 8080)).toBe('tcp-8080');
  expect(portName('UDP', 53)).toBe('udp-53');
});

describe('NameRegistry', () => {
  test('the same owner may claim a name again, and kinds are separate', () => {
    const names = new NameRegistry();
    names.claim('Service', 'web', { owner: 'service "web"' });
    expect(names.claim('Service', 'web', { owner: 'service "web"' })).toBe('web');
    expect(names.claim('Secret', 'web', { owner: 'secret "web"' })).toBe('web');
  });

  test('throws naming both owners when two map to one name', () => {
    const names = new NameRegistry();
    names.claim('Service', 'web-app', { owner: 'service "web-app"' });
    expect(() =>
      names.claim('Service', 'web-app', {
        owner: 'service "web_app"',
        at: { file: 'compose.yaml', path: 'services.web_app' },
      }),
    ).toThrow(
      new ComposeError('service "web_app" and service "web-app" both map to the Service name "web-app"', {
        at: { file: 'compose.yaml', path: 'services.web_app' },
        allowed: 'one Service per name; Kubernetes names are lower case with "-" instead of "_" or "."',
        hint: 'rename one of them in the compose file',
      }),
    );
  });
});
