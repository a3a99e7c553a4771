import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadComposeFromString } from '../../lib/compose/load';
import { VolumeMount } from '../../lib/compose/model';
import { errorOf, load, makeProject, web } from './helpers';

const project = makeProject({
  'config/nginx.conf': 'server { listen 80; }\n',
  'data/.keep': '',
  'blob.bin': '',
});
fs.writeFileSync(path.join(project.dir, 'blob.bin'), Buffer.from([0, 1, 2, 255]));
fs.writeFileSync(path.join(project.dir, 'big.txt'), 'x'.repeat(1024 * 1024 + 1));
fs.symlinkSync('/etc/hostname', path.join(project.dir, 'escape'));
afterAll(() => project.cleanup());

function mounts(body: string, extra = '', allowOutsideProject = false): VolumeMount[] {
  const { model } = load(`${web(body)}${extra}`, { projectDir: project.dir, allowOutsideProject });
  return model.services[0].volumes.map((m) => ({ ...m, at: undefined }) as unknown as VolumeMount);
}

const NAMED = 'volumes:\n  data: {}\n  cache:\n';

describe('service volumes', () => {
  test('short syntax: named, anonymous, relative and absolute binds, options', () => {
    expect(
      mounts(
        [
          'volumes:',
          '  - data:/var/lib/data',
          '  - /anonymous',
          '  - ./config/nginx.conf:/etc/nginx/nginx.conf:ro',
          '  - ./data:/srv/data:rw',
          '  - ./missing:/srv/missing',
          '  - /var/run/docker.sock:/var/run/docker.sock',
          '  - cache:/cache/:ro,z',
        ].join('\n'),
        NAMED,
      ),
    ).toEqual([
      { type: 'volume', target: '/anonymous', readOnly: false, at: undefined },
      { type: 'volume', source: 'cache', target: '/cache', readOnly: true, at: undefined },
      {
        type: 'bind',
        source: './config/nginx.conf',
        target: '/etc/nginx/nginx.conf',
        readOnly: true,
        bind: {
          kind: 'file',
          content: { path: './config/nginx.conf', text: 'server { listen 80; }\n', binary: false },
        },
        at: undefined,
      },
      {
        type: 'bind',
        source: './data',
        target: '/srv/data',
        readOnly: false,
        bind: { kind: 'directory', files: [{ path: '.keep', text: '', binary: false }], sizeBytes: 0 },
        at: undefined,
      },
      {
        type: 'bind',
        source: './missing',
        target: '/srv/missing',
        readOnly: false,
        bind: { kind: 'missing' },
        at: undefined,
      },
      { type: 'volume', source: 'data', target: '/var/lib/data', readOnly: false, at: undefined },
      {
        type: 'bind',
        source: '/var/run/docker.sock',
        target: '/var/run/docker.sock',
        readOnly: false,
        bind: { kind: 'outside' },
        at: undefined,
      },
    ]);
  });

  test('long syntax: volume with subpath, bind read_only, tmpfs with size', () => {
    expect(
      mounts(
        [
          'volumes:',
          '  - {type: volume, source: data, target: /data, volume: {subpath: sub, nocopy: true}}',
          '  - {type: bind, source: ./config/nginx.conf, target: /etc/nginx.conf, read_only: true}',
          '  - {type: tmpfs, target: /scratch, tmpfs: {size: 64m}}',
          '  - {type: volume, target: /anon}',
        ].join('\n'),
        NAMED,
      ),
    ).toEqual([
      { type: 'volume', target: '/anon', readOnly: false, at: undefined },
      { type: 'volume', source: 'data', target: '/data', readOnly: false, subpath: 'sub', nocopy: true, at: undefined },
      {
        type: 'bind',
        source: './config/nginx.conf',
        target: '/etc/nginx.conf',
        readOnly: true,
        bind: {
          kind: 'file',
          content: { path: './config/nginx.conf', text: 'server { listen 80; }\n', binary: false },
        },
        at: undefined,
      },
      { type: 'tmpfs', target: '/scratch', readOnly: false, sizeBytes: 64 * 1024 * 1024, at: undefined },
    ]);
  });

  test('the tmpfs key, as a string or a list, joins the mounts', () => {
    expect(mounts('tmpfs: /run')).toEqual([{ type: 'tmpfs', target: '/run', readOnly: false, at: undefined }]);
    expect(mounts('tmpfs:\n  - /run:size=1g,mode=1777\n  - /tmp')).toEqual([
      { type: 'tmpfs', target: '/run', readOnly: false, sizeBytes: 1024 ** 3, at: undefined },
      { type: 'tmpfs', target: '/tmp', readOnly: false, at: undefined },
    ]);
  });

  test('binary files are base64, files over 1 MiB are not read, with a warning', () => {
    const { model, warnings } = load(web('volumes:\n  - ./blob.bin:/b\n  - ./big.txt:/big'), {
      projectDir: project.dir,
    });
    const [blob, big] = model.services[0].volumes;
    expect(blob.bind).toEqual({ kind: 'file', content: { path: './blob.bin', text: 'AAEC/w==', binary: true } });
    expect(big.bind).toEqual({ kind: 'file' });
    expect(warnings.map((w) => w.code)).toEqual(['large-bind-file']);
  });

  test('paths leaving the project are not read unless allowed, symbolic links included', () => {
    const body = 'volumes:\n  - ../../etc/hostname:/a\n  - ./escape:/b\n  - ~/x:/c';
    expect(mounts(body).map((m) => m.bind)).toEqual([{ kind: 'outside' }, { kind: 'outside' }, { kind: 'outside' }]);
    const allowed = mounts(body, '', true);
    expect(allowed[0].bind?.kind).toBe(fs.existsSync('/etc/hostname') ? 'file' : 'missing');
    expect(allowed[0].source).toBe('../../etc/hostname');
  });

  test('nocopy is kept on named volumes (short and long syntax), and reported on a bind', () => {
    const { model, warnings } = load(
      `${web('volumes:\n  - data:/a:nocopy\n  - {type: volume, source: data, target: /b, volume: {nocopy: false}}\n  - ./x:/c:nocopy')}${NAMED}`,
    );
    expect(model.services[0].volumes.map((m) => [m.target, m.nocopy])).toEqual([
      ['/a', true],
      ['/b', undefined],
      ['/c', undefined],
    ]);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      ['unsupported-volume-option', 'ignored volume option "nocopy": nocopy applies to named volumes only'],
    ]);
  });

  test('ignored options give one warning per option and service', () => {
    const { warnings } = load(`${web('volumes:\n  - data:/a:z\n  - data:/b:z\n  - data:/c:Z')}${NAMED}`);
    expect(warnings.map((w) => [w.code, w.message, w.at.path])).toEqual([
      [
        'unsupported-volume-option',
        'ignored volume option "z": SELinux relabelling is done by the cluster\'s volume plugin (on 2 mounts)',
        'services.web.volumes[0]',
      ],
      [
        'unsupported-volume-option',
        'ignored volume option "Z": SELinux relabelling is done by the cluster\'s volume plugin',
        'services.web.volumes[2]',
      ],
    ]);
  });

  test.each([
    [
      'volumes: ["undeclared:/data"]',
      'the service uses volume "undeclared", which is not declared under the top-level volumes',
    ],
    ['volumes: ["./x:relative"]', 'the container path "relative" is not absolute'],
    ['volumes: ["./x:/a:rx"]', 'invalid volume option "rx"'],
    ['volumes: ["a:b:c:d"]', 'invalid volume'],
    ['volumes: [{type: nfs, source: x, target: /x}]', 'unsupported volume type "nfs"'],
    ['volumes: [{source: x, target: /x}]', 'a long-syntax volume needs a type'],
    ['volumes: [{type: bind, target: /x}]', 'a bind mount needs a source'],
    ['volumes: [{type: volume, source: data}]', 'a long-syntax volume needs a target'],
    ['volumes: ["/a", "./b:/a"]', 'two mounts use the container path "/a"'],
    ['tmpfs: ["/run:size=lots"]', 'invalid tmpfs size "lots"'],
  ])('%s is refused: %s', (body, problem) => {
    expect(errorOf(() => mounts(body, 'volumes:\n  data:\n')).problem).toBe(problem);
  });

  // compose-go's TestLoadBindMountSourceIsWindowsAbsolute and its short-syntax parser: a drive letter stays in its path.
  test('Windows paths parse as compose-go parses them: a host path, never read', () => {
    const { model, warnings } = load(
      web(
        "volumes: ['C:\\src:D:\\dst:rw', 'c:/logs:/logs:ro', " +
          "{type: bind, source: 'Z:\\', target: 'C:\\data'}, {type: bind, source: 'Z:\\some-dir', target: 'C:\\other'}]",
      ),
    );
    expect(model.services[0].volumes.map((v) => [v.type, v.source, v.target, v.readOnly, v.bind?.kind])).toEqual([
      ['bind', 'c:/logs', '/logs', true, 'outside'],
      ['bind', 'Z:\\', 'C:\\data', false, 'outside'],
      ['bind', 'Z:\\some-dir', 'C:\\other', false, 'outside'],
      ['bind', 'C:\\src', 'D:\\dst', false, 'outside'],
    ]);
    expect(warnings).toEqual([]);
  });

  test('image, npipe and cluster mounts are reported and not converted', () => {
    const { model, warnings } = load(
      web(
        'volumes: [{type: image, source: app/image, target: /mnt/image, image: {subpath: /foo}}, ' +
          "{type: npipe, source: '\\\\.\\pipe\\docker_engine', target: '\\\\.\\pipe\\docker_engine'}, \"./x:/x\"]",
      ),
    );
    expect(model.services[0].volumes.map((v) => v.target)).toEqual(['/x']);
    expect(warnings.map((w) => [w.code, w.at.path, w.message])).toEqual([
      [
        'unsupported-volume',
        'services.web.volumes[0]',
        'the image mount at "/mnt/image" is not converted: an image mount ' +
          'needs the image volume source of Kubernetes 1.31 (copy the files in an init container instead)',
      ],
      [
        'unsupported-volume',
        'services.web.volumes[1]',
        'the npipe mount at "\\\\.\\pipe\\docker_engine" is not converted: ' +
          'a named pipe is a Windows host resource',
      ],
    ]);
  });

  test('an undeclared named volume says how to fix it', () => {
    expect(errorOf(() => mounts('volumes: ["dbdata:/var/lib/mysql"]', NAMED)).message).toBe(
      'compose.yaml:4:15: services.web.volumes[0]: the service uses volume "dbdata", which is not declared under ' +
        'the top-level volumes (got "dbdata:/var/lib/mysql"). Allowed: one of cache, data, or a path starting with ' +
        './ or /. Fix: add "dbdata:" under the top-level volumes, or write "./dbdata" for a folder next to the ' +
        'compose file.',
    );
  });
});

describe('top-level volumes', () => {
  test('external, names, drivers and labels', () => {
    const { model } = load(
      [
        'services: {}',
        'volumes:',
        '  plain:',
        '  ext: {external: true}',
        '  renamed: {external: true, name: real-name}',
        '  legacy: {external: {name: old-style}}',
        '  local: {driver: local, driver_opts: {type: none, o: bind, device: /srv}, labels: [a=b], name: custom}',
        '',
      ].join('\n'),
    );
    expect(model.volumes.map((v) => ({ ...v, at: undefined }))).toEqual([
      { name: 'ext', external: true, externalName: 'ext', driverOpts: {}, labels: {}, at: undefined },
      { name: 'legacy', external: true, externalName: 'old-style', driverOpts: {}, labels: {}, at: undefined },
      {
        name: 'local',
        external: false,
        externalName: 'custom',
        driver: 'local',
        driverOpts: { device: '/srv', o: 'bind', type: 'none' },
        labels: { a: 'b' },
        at: undefined,
      },
      { name: 'plain', external: false, driverOpts: {}, labels: {}, at: undefined },
      { name: 'renamed', external: true, externalName: 'real-name', driverOpts: {}, labels: {}, at: undefined },
    ]);
  });
});

describe('directory binds inside the project', () => {
  test('files up to 1 MiB are read, sorted by their path below the directory; a larger tree keeps only its size', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bind-dir-'));
    try {
      fs.mkdirSync(path.join(dir, 'certs', 'ca'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'certs', 'tls.crt'), 'cert\n');
      fs.writeFileSync(path.join(dir, 'certs', 'ca', 'root.der'), Buffer.from([0, 1, 2]));
      fs.mkdirSync(path.join(dir, 'big'));
      fs.writeFileSync(path.join(dir, 'big', 'a.bin'), Buffer.alloc(700 * 1024));
      fs.writeFileSync(path.join(dir, 'big', 'b.bin'), Buffer.alloc(700 * 1024));
      const { model } = loadComposeFromString(
        'services: { a: { image: a:1, volumes: ["./certs:/etc/certs", "./big:/big"] } }',
        { env: {}, projectDir: dir },
      );
      const [big, certs] = model.services[0].volumes;
      expect(certs.bind).toEqual({
        kind: 'directory',
        sizeBytes: 8,
        files: [
          { path: 'ca/root.der', text: Buffer.from([0, 1, 2]).toString('base64'), binary: true },
          { path: 'tls.crt', text: 'cert\n', binary: false },
        ],
      });
      expect(big.bind).toEqual({ kind: 'directory', sizeBytes: 1400 * 1024 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('a one-letter volume name is not a drive: v:/v and v:/v:ro mount volume v', () => {
  const { model } = load(
    'services:\n  web:\n    image: nginx:1.27.2\n    volumes: ["v:/v", "w:/w:ro"]\nvolumes:\n  v:\n  w:\n',
  );
  expect(model.services[0].volumes.map((m) => [m.type, m.source, m.target, m.readOnly])).toEqual([
    ['volume', 'v', '/v', false],
    ['volume', 'w', '/w', true],
  ]);
});
