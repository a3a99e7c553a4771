import { HostRewriter } from '../../../lib/app/hosts/host-rewrite';

const hosts = new HostRewriter(
  new Map([
    ['plausible_db', 'plausible-db'],
    ['cache', 'redis'],
    ['Broker', 'broker-svc'],
    ['api', 'api'],
  ]),
);

describe('HostRewriter.rewrite', () => {
  test.each([
    ['postgres://u:p@plausible_db:5432/app', 'postgres://u:p@plausible-db:5432/app'],
    ['redis://cache:6379/0', 'redis://redis:6379/0'],
    ['http://broker/queue', 'http://broker-svc/queue'],
    ['cache:6379', 'redis:6379'],
    ['cache', 'redis'],
    ['cache,plausible_db', 'redis,plausible-db'],
    ['host=plausible_db port=5432 dbname=app', 'host=plausible-db port=5432 dbname=app'],
    ['mongodb://cache:1,plausible_db:2/x', 'mongodb://redis:1,plausible-db:2/x'],
  ])('%s → %s', (value, expected) => {
    expect(hosts.rewrite(value).value).toBe(expected);
  });

  test('reports each distinct rewrite once', () => {
    expect(hosts.rewrite('redis://cache:6379, cache:6380').rewrites).toEqual([{ from: 'cache', to: 'redis' }]);
  });

  test.each([
    'a cache of results',
    'cache.example.com:6379',
    'http://api:8000',
    'use the redis cache please',
    'plausible_db_backup',
  ])('leaves %s alone', (value) => {
    expect(hosts.rewrite(value)).toEqual({ value, rewrites: [] });
  });
});

test('references finds whole tokens anywhere in a file', () => {
  expect(hosts.references('upstream { server cache:6379; }\n# cached items\nproxy_pass http://api:8000;')).toEqual([
    { from: 'cache', to: 'redis' },
  ]);
});
