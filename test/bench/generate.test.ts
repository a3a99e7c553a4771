import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { COMPOSE_FILE, SERVICES_PER_FILE, generateApp, writeApp } from '../../bench/generate';
import { ComposeApp } from '../../lib/app/compose-app';
import { DEFAULT_LOAD_LIMITS, loadCompose } from '../../lib/compose/load';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function written(services: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-generate-'));
  dirs.push(dir);
  writeApp(dir, generateApp({ services }));
  return dir;
}

describe('generateApp', () => {
  test('the same seed and size give the same files; another seed gives others', () => {
    expect(generateApp({ services: 40, seed: 7 })).toEqual(generateApp({ services: 40, seed: 7 }));
    expect(generateApp({ services: 40, seed: 8 }).files[COMPOSE_FILE]).not.toBe(
      generateApp({ services: 40, seed: 7 }).files[COMPOSE_FILE],
    );
  });

  test('has the requested number of services in the realistic mix', () => {
    const { roles } = generateApp({ services: 100 });
    expect(Object.values(roles).reduce((a, b) => a + b, 0)).toBe(100);
    expect(roles).toEqual({
      postgres: expect.any(Number),
      redis: expect.any(Number),
      mariadb: expect.any(Number),
      web: expect.any(Number),
      api: expect.any(Number),
      worker: expect.any(Number),
      job: expect.any(Number),
    });
    expect(roles.postgres + roles.redis + roles.mariadb).toBe(4);
    expect(generateApp({ services: 10 }).roles).toMatchObject({ postgres: 1, redis: 1 });
  });

  test('loads without findings: ports, secrets, named volumes, healthchecks, depends_on, two networks', () => {
    const { model, warnings } = loadCompose({ workingDir: written(30), env: {} });
    expect(warnings).toEqual([]);
    expect(model.services).toHaveLength(30);
    expect(model.networks.map((n) => n.name)).toEqual(['backend', 'frontend']);
    const every = (test: (s: (typeof model.services)[number]) => boolean) => model.services.filter(test).length;
    expect(every((s) => s.ports.length > 0)).toBeGreaterThan(0);
    expect(every((s) => s.secrets.length > 0)).toBeGreaterThan(0);
    expect(every((s) => s.volumes.some((v) => v.type === 'volume' && v.source !== undefined))).toBeGreaterThan(2);
    expect(every((s) => s.healthcheck !== undefined)).toBeGreaterThan(15);
    expect(every((s) => s.dependsOn.some((d) => d.condition === 'service_healthy'))).toBeGreaterThan(15);
    expect(every((s) => s.networks.length === 2)).toBeGreaterThan(0);
    expect(model.secrets.length).toBeGreaterThan(0);
  });

  test('becomes a ComposeApp without warnings but the engine defaults and copy-up: databases as stateful dependencies, jobs as Jobs, secrets only in Secrets', () => {
    const dir = written(10);
    const { model } = loadCompose({ workingDir: dir, env: {} });
    const chart = new Chart(Testing.app(), 'bench');
    // A real domain for the Ingress hosts: the default <service>.example.com is reported as a placeholder.
    const app = new ComposeApp(chart, 'App', { model, ingressDomain: 'bench.internal' });
    const docs = Testing.synth(chart);
    // copy-up: the workers' new named volumes get the image's files, as docker does, and that is said.
    expect(app.warnings.filter((w) => !['engine-default', 'copy-up'].includes(w.code))).toEqual([]);
    expect(app.warnings.filter((w) => w.code === 'engine-default').map((w) => w.at.path)).toEqual([
      'services.postgres-01',
      'services.redis-02',
    ]);
    expect(model.services.filter((s) => app.service(s.name).statefulDependency).map((s) => s.name)).toEqual([
      'postgres-01',
      'redis-02',
    ]);
    const jobs = model.services.filter((s) => s.name.startsWith('job-')).map((s) => s.name);
    expect(jobs.length).toBeGreaterThan(0);
    expect(
      docs
        .filter((d) => d.kind === 'Job')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(jobs);
    const secrets = fs
      .readFileSync(path.join(dir, '.env'), 'utf-8')
      .trim()
      .split('\n')
      .map((line) => line.split('=')[1]);
    const outsideSecrets = JSON.stringify(docs.filter((d) => d.kind !== 'Secret'));
    expect(secrets.filter((value) => outsideSecrets.includes(value))).toEqual([]);
  });

  test('1,000 services stay within the loader limits', () => {
    const text = generateApp({ services: 1000 }).files[COMPOSE_FILE];
    expect(Buffer.byteLength(text)).toBeLessThan(DEFAULT_LOAD_LIMITS.maxFileBytes);
  });

  test('refuses fewer than 3 services', () => {
    expect(() => generateApp({ services: 2 })).toThrow('services must be a whole number, 3 or more; got 2');
  });

  test('an app larger than one file can be is split into included files under the size limit, with every service', () => {
    const size = SERVICES_PER_FILE + 5;
    const app = generateApp({ services: size });
    const parts = Object.keys(app.files).filter((f) => /^services-\d+\.yaml$/.test(f));
    expect(parts).toEqual(['services-01.yaml', 'services-02.yaml']);
    for (const part of parts) {
      expect(Buffer.byteLength(app.files[part])).toBeLessThan(DEFAULT_LOAD_LIMITS.maxFileBytes);
    }
    const dir = written(size);
    const { model, warnings } = loadCompose({ workingDir: dir, env: {} });
    expect(warnings).toEqual([]);
    expect(model.services).toHaveLength(size);
  });
});
