import { isDnsSubdomain, isIngressHost } from '../../lib/util/dns';

test('isDnsSubdomain takes dot-separated lower-case DNS labels', () => {
  for (const good of ['a', 'db', 'db.example-1', '0.a-b.c']) {
    expect([good, isDnsSubdomain(good)]).toEqual([good, true]);
  }
  for (const bad of ['', 'Db', '-db', 'db-', 'db..x', '*.db', 'db_x', 'db.']) {
    expect([bad, isDnsSubdomain(bad)]).toEqual([bad, false]);
  }
});

test('isIngressHost also takes one leading wildcard', () => {
  expect(isIngressHost('*.example.com')).toBe(true);
  expect(isIngressHost('app.example.com')).toBe(true);
  for (const bad of ['*', 'a.*.com', '**.example.com', 'Example.com', '']) {
    expect([bad, isIngressHost(bad)]).toEqual([bad, false]);
  }
});
