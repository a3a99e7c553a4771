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
    expect(merged([
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
    ].join('\n'))).toEqual({
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

  test('follows compose\'s override rules', () => {
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
    expect(merged(
      'name: one\nvolumes: {a: {}}\nnetworks: {n: {internal: true}}\n',
      'name: two\nvolumes: {b: {}}\nnetworks: {n: {driver: bridge}}\n',
    )).toEqual({
      name: 'two',
      volumes: { a: {}, b: {} },
      networks: { n: { internal: true, driver: 'bridge' } },
    });
  });
});
