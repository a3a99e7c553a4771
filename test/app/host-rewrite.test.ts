import { HostRewriter } from '../../lib/app/host-rewrite';

const hosts = new HostRewriter(new Map([
  ['plausible_db', 'plausible-db'],
  ['cache', 'redis'],
  ['Broker', 'broker-svc'],
  ['api', 'api'],
]));

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

describe('hostsIn', () => {
  const hosts = new HostRewriter(new Map([['shop_db', 'shop-db'], ['shop-db', 'shop-db'], ['cache', 'redis'], ['redis', 'redis']]));

  test('finds the Services a value reaches where hosts are read, already resolving or not, with the port beside them', () => {
    expect(hosts.hostsIn('postgresql://app:secret@shop_db:5432/shop')).toEqual([{ service: 'shop-db', port: 5432 }]);
    expect(hosts.hostsIn('redis://redis/0')).toEqual([{ service: 'redis', port: undefined }]);
    expect(hosts.hostsIn('cache')).toEqual([{ service: 'redis', port: undefined }]);
    expect(hosts.hostsIn('host=shop-db port=5432')).toEqual([{ service: 'shop-db', port: undefined }]);
  });

  test('ignores the names in other positions', () => {
    expect(hosts.hostsIn('use the cache wisely')).toEqual([]);
    expect(hosts.hostsIn('https://redis.example.com/')).toEqual([]);
  });
});

test('hostsIn a file counts URLs and host:port only', () => {
  const files = new HostRewriter(new Map([['api', 'api'], ['redis', 'redis']]));
  expect(files.hostsIn('upstream app { server api:8000; }\n# redis is used elsewhere\n', true)).toEqual([{ service: 'api', port: 8000 }]);
  expect(files.hostsIn('redis', true)).toEqual([]);
});
