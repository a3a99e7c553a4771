import { Size } from 'cdk8s';
import { ComposeApp } from '../../lib/app/compose-app';
import { findDoc, findDocs } from '../support/yaml-docs';
import { podSpec, synthApp } from './app-fixture';

function codes(app: ComposeApp): string[] {
  return app.warnings.map((w) => w.code);
}

describe('volumes → PersistentVolumeClaim', () => {
  const { app, docs } = synthApp(
    `
services:
  app:
    image: a:1
    volumes:
      - data:/var/lib/app
      - sized:/srv/sized
      - /var/cache/app
      - type: tmpfs
        target: /run/tmp
        tmpfs: { size: 16m }
  reader:
    image: a:1
    volumes: [data:/data:ro]
  stateless:
    image: a:1
    volumes: [/scratch]
volumes:
  data: {}
  sized:
    labels: { kompose.volume.size: 3Gi }
  fast: {}
`,
    { storageClassName: 'standard', volumes: { data: { size: Size.gibibytes(2) } } },
  );

  test('a named volume gets a ReadWriteOnce claim with its size and storage class', () => {
    expect(findDoc(docs, 'PersistentVolumeClaim', 'data').spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '2Gi' } },
      storageClassName: 'standard',
      volumeMode: 'Filesystem',
    });
    expect(findDoc(docs, 'PersistentVolumeClaim', 'sized').spec.resources.requests.storage).toBe('3Gi');
  });

  test('unused volumes get no claim', () => {
    expect(findDocs(docs, 'PersistentVolumeClaim').map((d) => d.metadata.name)).toEqual(['data', 'sized']);
  });

  test('anonymous volumes become emptyDir and tmpfs a memory-backed emptyDir', () => {
    const volumes = podSpec(findDoc(docs, 'Deployment', 'app')).volumes;
    expect(volumes).toContainEqual({ name: 'anon-var-cache-app', emptyDir: {} });
    expect(volumes).toContainEqual({ name: 'tmpfs-run-tmp', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } });
    expect(codes(app)).toContain('anonymous-volume');
  });

  test("an anonymous volume receives the image's files, as docker fills a new one (node_modules beside a bind)", () => {
    const init = podSpec(findDoc(docs, 'Deployment', 'app')).initContainers.find(
      (c: any) => c.name === 'anon-var-cache-app-copy-up',
    );
    expect(init.image).toBe('a:1');
    expect(init.volumeMounts).toEqual([{ mountPath: '/claim', name: 'anon-var-cache-app' }]);
    expect(init.command.join(' ')).toContain(`cp -a '/var/cache/app'/. "$d"/`);
    expect(
      app.warnings.find((w) => w.code === 'anonymous-volume' && w.message.includes('/var/cache/app'))?.message,
    ).toContain("an init container from the service's image fills with the image's files at each start");
    // --copy-up off (copyUp: false) leaves it empty, and the warning says so.
    const off = synthApp('services:\n  app:\n    image: a:1\n    volumes: [/var/cache/app]\n', { copyUp: false });
    expect(podSpec(findDoc(off.docs, 'Deployment', 'app')).initContainers ?? []).toEqual([]);
    expect(off.app.warnings.find((w) => w.code === 'anonymous-volume')?.message).toContain('it starts empty');
  });

  test('a pod that mounts a ReadWriteOnce claim is replaced with Recreate; others roll', () => {
    expect(findDoc(docs, 'Deployment', 'app').spec.strategy).toEqual({ type: 'Recreate' });
    expect(findDoc(docs, 'Deployment', 'reader').spec.strategy).toEqual({ type: 'Recreate' });
    expect(findDoc(docs, 'Deployment', 'stateless').spec.strategy.type).toBe('RollingUpdate');
  });

  test('one ReadWriteOnce volume shared by several services keeps their pods on one node, and says so', () => {
    expect(app.warnings).toContainEqual(
      expect.objectContaining({
        code: 'shared-volume',
        message:
          'volume "data" is mounted by services app, reader: its ReadWriteOnce claim "data" attaches to one node, so ' +
          'their pods are scheduled onto one node (a required podAffinity on cdk8s-compose.io/volume-group), as ' +
          'compose ran them on one host; use a ReadWriteMany class instead with sharedVolumes (--shared-volumes rwx)',
      }),
    );
    for (const name of ['app', 'reader']) {
      const template = findDoc(docs, 'Deployment', name).spec.template;
      expect(template.metadata.labels['cdk8s-compose.io/volume-group']).toBe('data');
      expect(template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution).toEqual([
        {
          labelSelector: { matchLabels: { 'cdk8s-compose.io/volume-group': 'data' } },
          topologyKey: 'kubernetes.io/hostname',
        },
      ]);
    }
    expect(podSpec(findDoc(docs, 'Deployment', 'stateless')).affinity).toBeUndefined();
  });

  test('an impossible size is an error: a bad label', () => {
    expect(() =>
      synthApp(
        'services:\n  a: { image: a:1, volumes: ["v:/v"] }\nvolumes:\n  v:\n    labels: { kompose.volume.size: lots }\n',
      ),
    ).toThrow(
      'compose.yaml:5:5: volumes.v.labels["kompose.volume.size"]: invalid volume size (got "lots"). ' +
        'Allowed: a positive Kubernetes quantity such as "512Mi", "10Gi" or "1Ti". Fix: write the size with a binary unit, for example "10Gi".',
    );
  });

  test('an impossible size is an error: a zero prop', () => {
    expect(() =>
      synthApp('services:\n  a: { image: a:1, volumes: ["v:/v"] }\nvolumes:\n  v: {}\n', {
        volumes: { v: { size: Size.gibibytes(0) } },
      }),
    ).toThrow(
      'test/app: volumes["v"].size is not a positive size (got "0 bytes"). Allowed: a positive Kubernetes quantity such as "512Mi", "10Gi" or "1Ti".',
    );
  });
});
