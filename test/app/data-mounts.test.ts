import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, JsonPatch, Size } from 'cdk8s';
import { COMPOSE_SOURCE_ANNOTATION, SharedVolumes } from '../../lib/app/storage/claim-sources';
import { VerifyCheck, VerifyStatus } from '../../lib/app/verify/verify';
import { loadCompose } from '../../lib/compose/load';
import { VolumeMount } from '../../lib/compose/model';
import { CORPUS_DIR } from '../support/shared';
import { findDoc, findDocs } from '../support/yaml-docs';
import { Manifest } from '../support/problems';
import { mainContainer, modelOf, podSpec, synthApp } from './app-fixture';

// Durable by mount, never by image: every compose source that keeps data is a claim, seeded like a bind, shared like
// compose, filled like docker's copy-up; and verify's data class catches each of these broken on purpose.

/** The pod volume a workload mounts at a path in its main container. */
function volumeAt(doc: Manifest, mountPath: string): any {
  const mount = mainContainer(doc).volumeMounts?.find((m: any) => m.mountPath === mountPath);
  return mount ? podSpec(doc).volumes.find((v: any) => v.name === mount.name) : undefined;
}

/**
 * What compose keeps across a restart, written out from the rule: a named volume mounted read-write, or a read-write
 * bind of a project folder that exists or not (a file, a host path, a link out of the project keep nothing here).
 */
function keptSourceOf(mount: VolumeMount): string | undefined {
  if (mount.type === 'volume' && mount.source !== undefined && !mount.readOnly) {
    return `volume:${mount.source}`;
  }
  const relative = mount.type === 'bind' && mount.source?.startsWith('./') && !mount.readOnly;
  if (relative && (mount.bind?.kind === 'directory' || mount.bind?.kind === 'missing')) {
    return `bind:./${path.posix.normalize(mount.source!).replace(/\/+$/, '')}`;
  }
  return undefined;
}

function tempProject(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'data-mounts-'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

function dataResults(report: { expectations: readonly any[] }, status?: VerifyStatus): string[] {
  return report.expectations
    .filter((e) => e.check === VerifyCheck.DATA && (status === undefined || e.status === status))
    .map((e) => `${e.service} ${e.subject}: ${e.status}`);
}

describe.each([
  'nextcloud-redis-mariadb',
  'gitea-postgres',
  'prometheus-grafana',
  'paperless-ngx-postgres-tika',
  'mailcow',
])('corpus app %s keeps its data', (dir) => {
  const { model } = loadCompose({ workingDir: path.join(CORPUS_DIR, dir), env: { PATH: '/usr/bin:/bin' } });
  const { app, docs } = synthApp(model);

  test('no mount that keeps data is an emptyDir: each is the claim of its compose source', () => {
    const kept: string[] = [];
    for (const service of model.services) {
      const migrated = app.services.find((s) => s.composeName === service.name);
      if (!migrated) {
        continue;
      }
      const doc = findDoc(
        docs,
        (migrated.workload as any).constructor.name.replace(/^Labelled/, ''),
        migrated.workload.name,
      );
      for (const mount of service.volumes) {
        const source = keptSourceOf(mount);
        if (source === undefined) {
          continue;
        }
        const container = podSpec(doc).containers.find((c: any) => c.name === migrated.container.name);
        const name = container.volumeMounts.find((m: any) => m.mountPath === mount.target)?.name;
        const volume = podSpec(doc).volumes.find((v: any) => v.name === name);
        expect(volume?.emptyDir).toBeUndefined();
        const claim = findDoc(docs, 'PersistentVolumeClaim', volume.persistentVolumeClaim.claimName);
        expect(claim.metadata.annotations[COMPOSE_SOURCE_ANNOTATION]).toBe(source);
        kept.push(source);
      }
    }
    expect(kept.length).toBeGreaterThan(0);
  });

  test("verify's data class holds", () => {
    expect(dataResults(app.verify(), VerifyStatus.BROKEN)).toEqual([]);
    expect(dataResults(app.verify(), VerifyStatus.OK).length).toBeGreaterThan(0);
  });
});

describe('a photo library: bound folders and a postgres under another image name', () => {
  const { app, docs } = synthApp(`
services:
  server:
    image: ghcr.io/immich-app/immich-server:v1.120.0
    volumes: [./library:/data, /etc/localtime:/etc/localtime:ro]
  database:
    image: ghcr.io/immich-app/postgres:14-vectorchord0.3.0
    environment: { POSTGRES_PASSWORD: photo-secret-1 }
    volumes: [./postgres:/var/lib/postgresql/data]
`);

  test('each read-write bind of a project folder is a claim, annotated with its source', () => {
    expect(
      findDocs(docs, 'PersistentVolumeClaim').map((d) => [
        d.metadata.name,
        d.metadata.annotations[COMPOSE_SOURCE_ANNOTATION],
      ]),
    ).toEqual([
      ['library', 'bind:./library'],
      ['postgres', 'bind:./postgres'],
    ]);
    expect(volumeAt(findDoc(docs, 'Deployment', 'server'), '/data').persistentVolumeClaim.claimName).toBe('library');
  });

  test("the database's data directory is on a subdirectory of its claim, so lost+found does not stop initdb", () => {
    const mount = mainContainer(findDoc(docs, 'Deployment', 'database')).volumeMounts[0];
    expect(mount).toMatchObject({ mountPath: '/var/lib/postgresql/data', subPath: 'pgdata' });
    expect(app.warnings.map((w) => w.code)).toContain('engine-data-subpath');
  });

  test('a host file bound read-only is still refused, not claimed', () => {
    expect(mainContainer(findDoc(docs, 'Deployment', 'server')).volumeMounts.map((m: any) => m.mountPath)).toEqual([
      '/data',
    ]);
    expect(app.warnings.map((w) => w.code)).toContain('host-path');
  });
});

describe('a bound link that leaves the project', () => {
  test('is refused as before: no claim, no seed, no file of the target read, a host-path warning', () => {
    const dir = tempProject({ 'inside/a.txt': 'in\n' });
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'data-mounts-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside-data-9\n');
    fs.symlinkSync(outside, path.join(dir, 'escape'));
    try {
      const { app, docs } = synthApp(modelOf('services:\n  a:\n    image: a:1\n    volumes: [./escape:/data]\n', dir));
      expect(findDocs(docs, 'PersistentVolumeClaim')).toEqual([]);
      expect(JSON.stringify(docs)).not.toContain('outside-data-9');
      expect(app.warnings.map((w) => w.code)).toContain('host-path');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('a recognised postgres with its data bound from the project', () => {
  const { app, docs } = synthApp(`
services:
  db:
    image: postgres:16
    environment: { POSTGRES_PASSWORD: bound-secret-2 }
    volumes: [./pgdata:/var/lib/postgresql/data]
`);

  test("the StatefulDependency keeps the bind's claim as its data claim, and its backup", () => {
    expect(app.service('db').statefulDependency!.dataClaim!.name).toBe('pgdata');
    expect(findDoc(docs, 'PersistentVolumeClaim', 'pgdata').metadata.annotations[COMPOSE_SOURCE_ANNOTATION]).toBe(
      'bind:./pgdata',
    );
    expect(findDocs(docs, 'PersistentVolumeClaim').map((d) => d.metadata.name)).not.toContain('db-data');
    expect(findDocs(docs, 'CronJob')).toHaveLength(1);
  });
});

describe('a chat server: six bound folders', () => {
  const { docs } = synthApp(`
services:
  app:
    image: mattermost/mattermost-team-edition:9.11
    volumes:
      - ./volumes/app/config:/mattermost/config
      - ./volumes/app/data:/mattermost/data
      - ./volumes/app/logs:/mattermost/logs
      - ./volumes/app/plugins:/mattermost/plugins
      - ./volumes/app/client/plugins:/mattermost/client/plugins
      - ./volumes/app/bleve-indexes/:/mattermost/bleve-indexes
`);

  test('each is one claim, named after its path', () => {
    expect(
      findDocs(docs, 'PersistentVolumeClaim').map((d) => d.metadata.annotations[COMPOSE_SOURCE_ANNOTATION]),
    ).toEqual([
      'bind:./volumes/app/bleve-indexes',
      'bind:./volumes/app/client/plugins',
      'bind:./volumes/app/config',
      'bind:./volumes/app/data',
      'bind:./volumes/app/logs',
      'bind:./volumes/app/plugins',
    ]);
    expect(podSpec(findDoc(docs, 'Deployment', 'app')).volumes.every((v: any) => v.persistentVolumeClaim)).toBe(true);
  });
});

describe('a writable bound folder is a claim seeded from its files', () => {
  const dir = tempProject({
    'prometheus/prometheus.yml': 'scrape_configs: []\n',
    'prometheus/rules/alerts.yml': 'groups: []\n',
    'functions/main/index.ts': 'Deno.serve(() => new Response("hi"))\n',
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const text = `
services:
  prometheus:
    image: prom/prometheus:v2.54.1
    volumes: [./prometheus:/etc/prometheus]
  functions:
    image: supabase/edge-runtime:v1.58.3
    user: "1000:1000"
    volumes: [./functions:/home/deno/functions:rw]
`;
  const { app, chart, docs } = synthApp(modelOf(text, dir));
  const prometheus = findDoc(docs, 'Deployment', 'prometheus');

  test('the app mounts the claim read-write, not ConfigMap subPaths', () => {
    expect(mainContainer(prometheus).volumeMounts).toEqual([
      { mountPath: '/etc/prometheus', name: 'prometheus', readOnly: false },
    ]);
    expect(app.warnings.map((w) => w.code)).not.toContain('bind-read-only');
  });

  test('a seed ConfigMap holds the files under their paths, and an init container copies them into the claim', () => {
    expect(findDoc(docs, 'ConfigMap', 'prometheus-seed').data).toEqual({
      'prometheus.yml': 'scrape_configs: []\n',
      'rules_alerts.yml': 'groups: []\n',
    });
    const seed = podSpec(prometheus).initContainers.find((c: any) => c.name === 'prometheus-seed');
    expect(seed.volumeMounts.map((m: any) => m.mountPath)).toEqual(['/claim', '/seed/0']);
    const seedVolume = podSpec(prometheus).volumes.find((v: any) => v.name === seed.volumeMounts[1].name);
    expect(seedVolume.configMap.items).toEqual([
      { key: 'prometheus.yml', path: 'prometheus.yml' },
      { key: 'rules_alerts.yml', path: 'rules/alerts.yml' },
    ]);
  });

  test('the seed runs once: it copies into an empty claim, then keeps what the app wrote, and never overwrites moved data', () => {
    const script: string = podSpec(prometheus).initContainers.find((c: any) => c.name === 'prometheus-seed').command[2];
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-run-'));
    const claim = path.join(root, 'claim');
    const seedData = path.join(root, 'seed', '..data');
    fs.mkdirSync(path.join(claim, 'lost+found'), { recursive: true });
    fs.mkdirSync(path.join(seedData, 'rules'), { recursive: true });
    fs.writeFileSync(path.join(seedData, 'prometheus.yml'), 'scrape_configs: []\n');
    fs.writeFileSync(path.join(seedData, 'rules', 'alerts.yml'), 'groups: []\n');
    const run = () =>
      execFileSync('sh', ['-c', script.split('/claim').join(claim).split('/seed/0').join(path.join(root, 'seed'))]);
    try {
      run();
      expect(fs.readFileSync(path.join(claim, 'rules', 'alerts.yml'), 'utf8')).toBe('groups: []\n');
      fs.writeFileSync(path.join(claim, 'prometheus.yml'), 'edited by the app\n');
      run();
      expect(fs.readFileSync(path.join(claim, 'prometheus.yml'), 'utf8')).toBe('edited by the app\n');
      fs.rmSync(claim, { recursive: true });
      fs.mkdirSync(claim);
      fs.writeFileSync(path.join(claim, 'prometheus.yml'), 'moved by move-data\n');
      run();
      expect(fs.readFileSync(path.join(claim, 'prometheus.yml'), 'utf8')).toBe('moved by move-data\n');
      expect(fs.existsSync(path.join(claim, 'rules'))).toBe(false);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test("the seeded files go to compose's user, whose group owns the pod's claims", () => {
    const functions = findDoc(docs, 'Deployment', 'functions');
    expect(podSpec(functions).initContainers[0].command[2]).toContain('chown -R 1000:1000 "$d"');
    expect(podSpec(functions).securityContext.fsGroup).toBe(1000);
  });

  test('verify: every seeded bind reaches its claim; removing the seed init container breaks it', () => {
    expect(dataResults(app.verify())).toEqual([
      'functions durable /home/deno/functions (bind mount "./functions"): ok',
      'functions seeded "./functions": ok',
      'prometheus durable /etc/prometheus (bind mount "./prometheus"): ok',
      'prometheus seeded "./prometheus": ok',
    ]);
    ApiObject.of(app.service('prometheus').workload).addJsonPatch(
      JsonPatch.remove('/spec/template/spec/initContainers/0'),
    );
    expect(dataResults(app.verify(), VerifyStatus.BROKEN)).toEqual(['prometheus seeded "./prometheus": broken']);
    void chart;
  });
});

describe('shared like compose', () => {
  const text = `
services:
  backend:
    image: penpotapp/backend:2.3
    volumes: [assets:/opt/data/assets]
  frontend:
    image: penpotapp/frontend:2.3
    volumes: [assets:/opt/data/assets:ro]
  worker:
    image: busybox:1.36
    deploy: { replicas: 3 }
    volumes: [./spool:/spool]
  alone:
    image: busybox:1.36
    volumes: [own:/own]
volumes:
  assets: {}
  own: {}
`;

  test('by default the pods that share a claim are held on one node by a required podAffinity, replicas included', () => {
    const { app, docs } = synthApp(text);
    const affinity = (name: string) => findDoc(docs, 'Deployment', name).spec.template;
    for (const [name, group] of [
      ['backend', 'assets'],
      ['frontend', 'assets'],
      ['worker', 'spool'],
    ]) {
      expect(affinity(name).metadata.labels['cdk8s-compose.io/volume-group']).toBe(group);
      expect(affinity(name).spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution).toEqual([
        {
          labelSelector: { matchLabels: { 'cdk8s-compose.io/volume-group': group } },
          topologyKey: 'kubernetes.io/hostname',
        },
      ]);
    }
    expect(affinity('alone').spec.affinity).toBeUndefined();
    expect(findDocs(docs, 'PersistentVolumeClaim').every((d) => d.spec.accessModes[0] === 'ReadWriteOnce')).toBe(true);
    expect(dataResults(app.verify()).filter((r) => r.includes(' shared '))).toEqual([
      'backend shared volume "assets": ok',
      'worker shared bind mount "./spool": ok',
    ]);
  });

  test('verify fails when the affinity is dropped', () => {
    const { app } = synthApp(text);
    ApiObject.of(app.service('frontend').workload).addJsonPatch(JsonPatch.remove('/spec/template/spec/affinity'));
    expect(dataResults(app.verify(), VerifyStatus.BROKEN)).toEqual(['backend shared volume "assets": broken']);
  });

  test('sharedVolumes ReadWriteMany: shared claims are ReadWriteMany, no affinity, and the class is named', () => {
    const { app, docs } = synthApp(text, {
      sharedVolumes: SharedVolumes.READ_WRITE_MANY,
      storageClassName: 'nfs-client',
    });
    expect(findDoc(docs, 'PersistentVolumeClaim', 'assets').spec.accessModes).toEqual(['ReadWriteMany']);
    expect(findDoc(docs, 'PersistentVolumeClaim', 'spool').spec.accessModes).toEqual(['ReadWriteMany']);
    expect(findDoc(docs, 'PersistentVolumeClaim', 'own').spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(findDocs(docs, 'Deployment').some((d) => podSpec(d).affinity)).toBe(false);
    expect(app.warnings).toContainEqual(
      expect.objectContaining({
        code: 'shared-volume-rwx',
        message:
          'volume "assets" is mounted by services backend, frontend: its claim "assets" is ReadWriteMany, which needs ' +
          'a storage class that supports it (the class "nfs-client")',
      }),
    );
    expect(dataResults(app.verify(), VerifyStatus.BROKEN)).toEqual([]);
  });

  test("an autoscaled service is told that its pods stay on the claim's node", () => {
    const { app } = synthApp(
      'services:\n  web:\n    image: nginx:1.27\n    labels: { kompose.hpa.cpu: "50" }\n    volumes: [./html:/usr/share/nginx/html]\n',
    );
    expect(app.warnings.map((w) => w.message)).toContainEqual(
      expect.stringContaining('which autoscales: every pod it adds'),
    );
  });
});

describe('copy-up like docker', () => {
  const text = `
services:
  nextcloud:
    image: nextcloud:29-apache
    volumes: [html:/var/www/html]
  fresh:
    image: redis:7
    volumes: [{ type: volume, source: cache, target: /cache, volume: { nocopy: true } }]
  static:
    image: gcr.io/distroless/static-debian12
    volumes: [bin:/bin-data]
volumes:
  html: {}
  cache: {}
  bin: {}
`;

  test("a new named volume receives the image's files: an init container from the service's image, once", () => {
    const { docs } = synthApp(text);
    const init = podSpec(findDoc(docs, 'Deployment', 'nextcloud')).initContainers;
    expect(init.map((c: any) => [c.name, c.image])).toEqual([['html-copy-up', 'nextcloud:29-apache']]);
    expect(init[0].volumeMounts).toEqual([{ mountPath: '/claim', name: 'html' }]);
    expect(init[0].command[2]).toContain(`cp -a '/var/www/html'/. "$d"/`);
    expect(init[0].securityContext).toMatchObject({ runAsUser: 0, allowPrivilegeEscalation: false });
  });

  test('the copy-up keeps ownership and runs only into an empty claim', () => {
    const { docs } = synthApp(text);
    const script: string = podSpec(findDoc(docs, 'Deployment', 'nextcloud')).initContainers[0].command[2];
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'copy-up-'));
    const image = path.join(root, 'image');
    const claim = path.join(root, 'claim');
    fs.mkdirSync(path.join(image, 'apps'), { recursive: true });
    fs.mkdirSync(path.join(claim, 'lost+found'), { recursive: true });
    fs.writeFileSync(path.join(image, 'index.php'), '<?php\n');
    fs.chmodSync(path.join(image, 'index.php'), 0o640);
    // As root (the init container's user), owners travel too: the claim's root becomes the image folder's owner's.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      execFileSync('chown', ['-R', '65534:65534', image]);
    }
    const run = () => execFileSync('sh', ['-c', script.split('/claim').join(claim).split('/var/www/html').join(image)]);
    try {
      run();
      expect(fs.statSync(path.join(claim, 'index.php')).mode & 0o777).toBe(0o640);
      if (asRoot) {
        expect([fs.statSync(claim).uid, fs.statSync(path.join(claim, 'index.php')).gid]).toEqual([65534, 65534]);
      }
      expect(fs.existsSync(path.join(claim, 'apps'))).toBe(true);
      fs.rmSync(path.join(claim, 'index.php'));
      run();
      expect(fs.existsSync(path.join(claim, 'index.php'))).toBe(false);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('nocopy, copyUp: false and an image without a shell get no copy-up; the last is reported', () => {
    const { app, docs } = synthApp(text);
    expect(podSpec(findDoc(docs, 'Deployment', 'fresh')).initContainers).toBeUndefined();
    expect(podSpec(findDoc(docs, 'Deployment', 'static')).initContainers).toBeUndefined();
    expect(app.warnings.find((w) => w.code === 'copy-up' && w.message.includes('distroless'))?.message).toBe(
      'volume "bin" at /bin-data starts empty: docker would copy the image\'s files there, but the image ' +
        '"gcr.io/distroless/static-debian12" is a distroless or scratch image without a shell, so no init container can ' +
        'copy them; copy them in after deploying, or set volume.nocopy: true to say the volume starts empty',
    );
    const off = synthApp(text, { copyUp: false });
    expect(findDocs(off.docs, 'Deployment').some((d) => podSpec(d).initContainers)).toBe(false);
    const one = synthApp(text, { services: { nextcloud: { copyUp: false } } });
    expect(podSpec(findDoc(one.docs, 'Deployment', 'nextcloud')).initContainers).toBeUndefined();
  });
});

describe("the claims' owner", () => {
  test('a user without a group is reported, and the pod gets no fsGroup; a uid:gid gives its group', () => {
    const text = (user: string) =>
      `services:\n  a:\n    image: a:1\n    user: "${user}"\n    volumes: [data:/data]\nvolumes:\n  data: {}\n`;
    const uidOnly = synthApp(text('1000'));
    expect(podSpec(findDoc(uidOnly.docs, 'Deployment', 'a')).securityContext.fsGroup).toBeUndefined();
    expect(uidOnly.app.warnings.find((w) => w.code === 'volume-owner')?.at.path).toBe('services.a.user');
    const withGroup = synthApp(text('1000:2000'));
    expect(podSpec(findDoc(withGroup.docs, 'Deployment', 'a')).securityContext.fsGroup).toBe(2000);
    expect(withGroup.app.warnings.map((w) => w.code)).not.toContain('volume-owner');
  });

  test('a read-only mount of an engine claim sees the same subdirectory the writer uses', () => {
    const { docs } = synthApp(
      'services:\n  db:\n    image: example/pg:1\n    volumes: [pg:/var/lib/postgresql/data]\n  reader:\n    image: a:1\n    volumes: [pg:/var/lib/postgresql/data:ro]\nvolumes:\n  pg: {}\n',
    );
    for (const name of ['db', 'reader']) {
      expect(mainContainer(findDoc(docs, 'Deployment', name)).volumeMounts[0].subPath).toBe('pgdata');
    }
  });
});

describe('names and secrets of bound folders', () => {
  test('paths that map to one name get distinct claims; a named volume keeps its own name', () => {
    const { docs } = synthApp(
      'services:\n  a:\n    image: a:1\n    volumes: [./a_b:/x, ./a-b:/y, ./library:/l, library:/v]\nvolumes:\n  library: {}\n',
    );
    expect(
      findDocs(docs, 'PersistentVolumeClaim').map((d) => [
        d.metadata.name,
        d.metadata.annotations[COMPOSE_SOURCE_ANNOTATION],
      ]),
    ).toEqual([
      ['library', 'volume:library'],
      ['a-b', 'bind:./a-b'],
      ['a-b-bind', 'bind:./a_b'],
      ['library-bind', 'bind:./library'],
    ]);
  });

  test('a seed file that holds a secret value seeds from a Secret, never a ConfigMap', () => {
    const dir = tempProject({ 'conf/app.ini': '[db]\npassword = seed-secret-77\n', 'conf/plain.txt': 'hello\n' });
    try {
      const { app, docs } = synthApp(
        modelOf(
          'services:\n  a:\n    image: a:1\n    environment: { DB_PASSWORD: seed-secret-77 }\n    volumes: [./conf:/conf]\n',
          dir,
        ),
      );
      expect(findDoc(docs, 'ConfigMap', 'conf-seed').data).toEqual({ 'plain.txt': 'hello\n' });
      expect(Object.keys(findDoc(docs, 'Secret', 'conf-seed').data)).toEqual(['app.ini']);
      expect(docs.filter((d) => d.kind !== 'Secret' && JSON.stringify(d).includes('seed-secret-77'))).toEqual([]);
      const seed = podSpec(findDoc(docs, 'Deployment', 'a')).initContainers[0];
      expect(seed.volumeMounts.map((m: any) => m.mountPath)).toEqual(['/claim', '/seed/0', '/seed/1']);
      expect(dataResults(app.verify())).toContain('a seeded "./conf": ok');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sizes and classes', () => {
  test('a default, a per-volume size for a named volume or a bind path, and the storage class', () => {
    const { docs } = synthApp(
      'services:\n  a:\n    image: a:1\n    volumes: [data:/data, ./library:/library, ./other:/other]\nvolumes:\n  data: {}\n',
      {
        storageSize: Size.gibibytes(5),
        storageClassName: 'fast',
        volumes: {
          'data': { size: Size.gibibytes(20) },
          './library': { size: Size.gibibytes(50), storageClassName: 'bulk' },
        },
      },
    );
    const spec = (name: string) => findDoc(docs, 'PersistentVolumeClaim', name).spec;
    expect(
      [spec('data'), spec('library'), spec('other')].map((s) => [s.resources.requests.storage, s.storageClassName]),
    ).toEqual([
      ['20Gi', 'fast'],
      ['50Gi', 'bulk'],
      ['5Gi', 'fast'],
    ]);
  });
});

describe("kompose's volume labels on the service", () => {
  test("size and class the claims of the service's bound folders, as kompose reads them", () => {
    const { docs } = synthApp(
      'services:\n  a:\n    image: a:1\n    labels: { kompose.volume.size: 3Gi, kompose.volume.storage-class-name: slow }\n    volumes: [./data:/data]\n',
    );
    expect(findDoc(docs, 'PersistentVolumeClaim', 'data').spec).toMatchObject({
      resources: { requests: { storage: '3Gi' } },
      storageClassName: 'slow',
    });
  });
});

describe("verify's data class fails when a claim becomes an emptyDir", () => {
  test('a JSON patch that swaps the claim for an emptyDir is broken, and says why', () => {
    const { app } = synthApp('services:\n  a:\n    image: a:1\n    volumes: [./data:/data]\n');
    ApiObject.of(app.service('a').workload).addJsonPatch(
      JsonPatch.replace('/spec/template/spec/volumes/0', { name: 'data', emptyDir: {} }),
    );
    const broken = app.verify().expectations.filter((e) => e.status === VerifyStatus.BROKEN);
    expect(broken.map((e) => [e.check, e.subject, e.detail])).toEqual([
      [
        'data',
        'durable /data (bind mount "./data")',
        'mounted from an emptyDir: what the app writes is lost with the pod',
      ],
    ]);
  });
});
