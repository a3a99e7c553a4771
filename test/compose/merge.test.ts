import { loadCompose } from '../../lib/compose/load';
import { canonicalize, mergeFiles } from '../../lib/compose/merge';
import { parseYaml, toPlain, YMap } from '../../lib/compose/yaml';
import { makeProject } from './helpers';

function merged(...texts: string[]): unknown {
  const trees = texts.map((text, i) => canonicalize(parseYaml(text, `f${i}.yaml`) as YMap));
  return toPlain(mergeFiles(trees));
}

describe('canonicalize', () => {
  test('list forms become maps; string-or-list keys become lists', () => {
    expect(
      merged(
        [
          'services:',
          '  web:',
          '    environment: [A=1, B]',
          '    labels: [x=y]',
          '    extra_hosts: ["h:1.2.3.4", "g=::1"]',
          '    depends_on: [db]',
          '    networks: [front]',
          '    dns: 8.8.8.8',
          '    build: {context: ., args: [V=1]}',
          '    deploy: {labels: [t=w]}',
          '',
        ].join('\n'),
      ),
    ).toEqual({
      services: {
        web: {
          environment: { A: '1', B: null },
          labels: { x: 'y' },
          extra_hosts: { h: '1.2.3.4', g: '::1' },
          depends_on: { db: { condition: 'service_started' } },
          networks: { front: null },
          dns: ['8.8.8.8'],
          build: { context: '.', args: { V: '1' } },
          deploy: { labels: { t: 'w' } },
        },
      },
    });
  });
});

describe('mergeFiles', () => {
  const base = [
    'services:',
    '  web:',
    '    image: web:1',
    '    command: ["a", "b"]',
    '    entrypoint: /bin/sh',
    '    environment: {A: base, B: base}',
    '    labels: [keep=1]',
    '    ports: ["80:80", "443:443"]',
    '    expose: ["3000"]',
    '    dns: [1.1.1.1]',
    '    volumes: ["data:/data", "./conf:/etc/app:ro"]',
    '    secrets: [s1, {source: s2, target: two}]',
    '    depends_on: [db]',
    '    healthcheck: {test: [CMD, a], interval: 10s}',
    '    cap_add: [NET_ADMIN]',
    '    deploy: {resources: {limits: {memory: 1g}}}',
    '',
  ].join('\n');
  const override = [
    'services:',
    '  web:',
    '    image: web:2',
    '    command: ["c"]',
    '    environment: [B=override, C=new]',
    '    labels: {add: "2"}',
    '    ports: ["443:443", "8080:80"]',
    '    expose: ["3000", "3001"]',
    '    dns: 8.8.8.8',
    '    volumes: ["./data:/data"]',
    '    secrets: [{source: s3, target: two}]',
    '    depends_on: {cache: {condition: service_healthy}}',
    '    healthcheck: {test: [CMD, b]}',
    '    cap_add: [NET_ADMIN, SYS_TIME]',
    '    deploy: {resources: {limits: {cpus: "1"}}}',
    '  cache:',
    '    image: redis',
    '',
  ].join('\n');

  test("follows compose's override rules", () => {
    expect(merged(base, override)).toEqual({
      services: {
        web: {
          image: 'web:2',
          command: ['c'],
          entrypoint: '/bin/sh',
          environment: { A: 'base', B: 'override', C: 'new' },
          labels: { keep: '1', add: '2' },
          ports: ['80:80', '443:443', '8080:80'],
          expose: ['3000', '3001'],
          dns: ['1.1.1.1', '8.8.8.8'],
          volumes: ['./data:/data', './conf:/etc/app:ro'],
          secrets: ['s1', { source: 's3', target: 'two' }],
          depends_on: { db: { condition: 'service_started' }, cache: { condition: 'service_healthy' } },
          healthcheck: { test: ['CMD', 'b'], interval: '10s' },
          cap_add: ['NET_ADMIN', 'SYS_TIME'],
          deploy: { resources: { limits: { memory: '1g', cpus: '1' } } },
        },
        cache: { image: 'redis' },
      },
    });
  });

  test('items keep the file they came from', () => {
    const project = makeProject({
      'compose.yaml': 'services:\n  web:\n    image: web:1\n    ports: ["80:80"]\n',
      'compose.override.yaml': 'services:\n  web:\n    ports: ["8080:8080"]\n',
    });
    try {
      const { model } = loadCompose({ workingDir: project.dir, env: {} });
      expect(model.files).toEqual(['compose.yaml', 'compose.override.yaml']);
      expect(model.services[0].ports.map((p) => [p.target, p.at.file, p.at.path])).toEqual([
        [80, 'compose.yaml', 'services.web.ports[0]'],
        [8080, 'compose.override.yaml', 'services.web.ports[0]'],
      ]);
    } finally {
      project.cleanup();
    }
  });

  test('top-level maps merge by key and scalars are replaced', () => {
    expect(
      merged(
        'name: one\nvolumes: {a: {}}\nnetworks: {n: {internal: true}}\n',
        'name: two\nvolumes: {b: {}}\nnetworks: {n: {driver: bridge}}\n',
      ),
    ).toEqual({
      name: 'two',
      volumes: { a: {}, b: {} },
      networks: { n: { internal: true, driver: 'bridge' } },
    });
  });
});

describe('!reset and !override', () => {
  const base = [
    'services:',
    '  web:',
    '    image: web:1',
    '    ports: ["80:80"]',
    '    environment: {A: "1", B: "2"}',
    '    labels: {keep: "1"}',
    '    healthcheck: {test: [CMD, a], interval: 10s}',
    '',
  ].join('\n');

  test('!reset removes what the earlier file gave; !override replaces instead of merging', () => {
    expect(
      merged(
        base,
        [
          'services:',
          '  web:',
          '    ports: !reset []',
          '    environment: !override {C: "3"}',
          '    labels: !override [only=1]',
          '    healthcheck: !reset null',
          '',
        ].join('\n'),
      ),
    ).toEqual({
      services: { web: { image: 'web:1', environment: { C: '3' }, labels: { only: '1' } } },
    });
  });

  test('without the tags the same override merges', () => {
    expect(merged(base, 'services:\n  web:\n    ports: []\n    environment: {C: "3"}\n')).toEqual({
      services: {
        web: {
          image: 'web:1',
          ports: ['80:80'],
          environment: { A: '1', B: '2', C: '3' },
          labels: { keep: '1' },
          healthcheck: { test: ['CMD', 'a'], interval: '10s' },
        },
      },
    });
  });

  test('a reset in the first file, or with nothing to reset, removes the attribute; a later file may set it again', () => {
    expect(merged('services:\n  web:\n    image: web:1\n    ports: !reset ["80:80"]\n')).toEqual({
      services: { web: { image: 'web:1' } },
    });
    expect(merged(base, 'services:\n  web:\n    user: !reset "1000"\n')).toEqual(merged(base));
    expect(
      merged(base, 'services:\n  web:\n    ports: !reset []\n', 'services:\n  web:\n    ports: ["9090:90"]\n'),
    ).toEqual(merged(base.replace('["80:80"]', '["9090:90"]')));
  });

  test('through the loader: interpolation and extends keep the tags', () => {
    const { dir, cleanup } = makeProject({
      'compose.yaml': [
        'services:',
        '  base:',
        '    image: app:1',
        '    ports: ["8080:80"]',
        '    environment: {A: "1"}',
        '  web:',
        '    extends: base',
        '    ports: !reset []',
        '    environment: !override {B: "${B_VALUE}"}',
        '',
      ].join('\n'),
      'compose.override.yaml': 'services:\n  base:\n    environment: !override\n      C: "3"\n',
    });
    try {
      const { model } = loadCompose({ workingDir: dir, env: { B_VALUE: 'two' } });
      const web = model.services.find((s) => s.name === 'web')!;
      const baseService = model.services.find((s) => s.name === 'base')!;
      expect(web.ports).toEqual([]);
      expect(web.environment.map((e) => [e.name, e.value])).toEqual([['B', 'two']]);
      expect(baseService.ports.map((p) => p.published)).toEqual([8080]);
      expect(baseService.environment.map((e) => [e.name, e.value])).toEqual([['C', '3']]);
    } finally {
      cleanup();
    }
  });
});
