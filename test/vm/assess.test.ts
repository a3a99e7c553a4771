import * as fs from 'fs';
import * as path from 'path';
import { isComposeError } from '../../lib/compose/errors';
import { loadCompose, loadComposeFromString } from '../../lib/compose/load';
import { ComposeService } from '../../lib/compose/model';
import { assessService, groupByStorage } from '../../lib/vm/assess';
import { tempDir } from './tools';
import { CORPUS_DIR as CORPUS } from '../support/shared';

function service(text: string): ComposeService {
  return loadComposeFromString(text, { env: {}, projectDir: tempDir('assess') }).model.services[0];
}

describe('assessService', () => {
  test('an ordinary service stays a container', () => {
    expect(
      assessService(
        service('services:\n  web:\n    image: nginx:1.25\n    ports: ["80:80"]\n    cap_add: [NET_BIND_SERVICE]\n'),
      ),
    ).toEqual({ target: 'container', reasons: [], weak: [] });
  });

  test('flags everything that cannot run as an ordinary container, naming the compose key path', () => {
    const result = assessService(
      service(`
services:
  agent:
    image: agent:1
    privileged: true
    network_mode: host
    devices: ["/dev/kvm:/dev/kvm", "/dev/net/tun"]
    sysctls:
      net.ipv4.ip_unprivileged_port_start: "0"
      net.core.somaxconn: "1024"
      kernel.msgmax: "65536"
    volumes:
      - /var/run/docker.sock:/var/run/docker.sock:ro
      - /lib/modules:/lib/modules:ro
      - ./data:/data
`),
    );
    expect(result).toEqual({
      target: 'vm',
      reasons: [
        // Volumes come in the model's order (by target); each reason names its place in the file.
        'services.agent.volumes: mounts /lib/modules: the service loads kernel modules, which a pod must not do to its node',
        'services.agent.volumes: mounts the Docker socket /var/run/docker.sock: the service drives a Docker engine, which a pod does not have',
        'services.agent.privileged: runs privileged, which Pod Security admission (baseline) refuses',
        'services.agent.network_mode: uses the host network ("host"), which Pod Security admission (baseline) refuses',
        'services.agent.devices: maps the host device "/dev/kvm:/dev/kvm", which a pod cannot do',
        'services.agent.devices: maps the host device "/dev/net/tun", which a pod cannot do',
        'services.agent.sysctls.kernel.msgmax: sets an unsafe sysctl, which the kubelet refuses unless the node allows it',
        'services.agent.sysctls.net.core.somaxconn: sets an unsafe sysctl, which the kubelet refuses unless the node allows it',
      ],
      weak: [],
    });
  });

  test('the corpus: the services that go to a VM, and why', () => {
    const findings: string[] = [];
    for (const dir of fs
      .readdirSync(CORPUS)
      .filter((d) => fs.existsSync(path.join(CORPUS, d, 'compose.yaml')))
      .sort()) {
      let services: readonly ComposeService[];
      try {
        services = loadCompose({ workingDir: path.join(CORPUS, dir), env: {} }).model.services;
      } catch (err) {
        if (isComposeError(err)) {
          continue; // build-only services need images supplied; the loader's own tests cover them
        }
        throw err;
      }
      for (const s of services) {
        const result = assessService(s);
        if (result.target === 'vm') {
          findings.push(`${dir}/${s.name}: ${result.reasons.map((r) => r.split(':')[0]).join(', ')}`);
        }
      }
    }
    expect(findings).toEqual([
      'mailcow/dockerapi-mailcow: services.dockerapi-mailcow.volumes',
      'mailcow/netfilter-mailcow: services.netfilter-mailcow.volumes, services.netfilter-mailcow.privileged, services.netfilter-mailcow.network_mode',
      'mailcow/ofelia-mailcow: services.ofelia-mailcow.volumes',
      'mailcow/redis-mailcow: services.redis-mailcow.sysctls.net.core.somaxconn',
      'plex/plex: services.plex.network_mode',
      'portainer/portainer: services.portainer.volumes',
      'wireguard/wireguard: services.wireguard.volumes, services.wireguard.sysctls.net.ipv4.conf.all.src_valid_mark',
    ]);
  });
});

function services(text: string): readonly ComposeService[] {
  return loadComposeFromString(text, { env: {}, projectDir: tempDir('assess') }).model.services;
}

describe('weak reasons', () => {
  const redis = service('services:\n  cache:\n    image: redis:7.4\n    sysctls: { net.core.somaxconn: "4096" }\n');

  test('a sysctl on a database or cache, which runs as a stateful dependency that sets none, does not move it', () => {
    expect(assessService(redis, { engine: 'redis' })).toEqual({
      target: 'container',
      reasons: [],
      weak: [
        'services.cache.sysctls.net.core.somaxconn: not a reason to move it: the service runs as a redis stateful ' +
          "dependency, whose pod keeps the engine's own settings and sets no sysctls",
      ],
    });
  });

  test('the same sysctl on an ordinary workload still moves it', () => {
    expect(assessService(redis).target).toBe('vm');
  });
});

describe('groupByStorage: a VM service and a container never split one store', () => {
  const AUTHENTIK_LIKE = `
services:
  server:
    image: ghcr.io/goauthentik/server:2025.2.4
    volumes: ["./media:/media", "./custom-templates:/templates"]
  worker:
    image: ghcr.io/goauthentik/server:2025.2.4
    volumes: ["/var/run/docker.sock:/var/run/docker.sock", "./media:/media", "certs:/certs"]
  backup:
    image: busybox:1.36
    volumes: ["certs:/certs"]
  reader:
    image: busybox:1.36
    volumes: ["./config.yml:/config.yml:ro"]
  docker-ui:
    image: busybox:1.36
    volumes: ["/var/run/docker.sock:/var/run/docker.sock", "./config.yml:/config.yml:ro"]
volumes:
  certs: {}
`;
  const all = services(AUTHENTIK_LIKE);
  const inVm = new Map([
    ['worker', ['docker.sock']],
    ['docker-ui', ['docker.sock']],
  ]);

  test('the services that share a written bind or named volume with a VM service join it, each with the reason', () => {
    expect([...groupByStorage(all, { inVm })]).toEqual([
      [
        'server',
        'services.server.volumes: shares the bind "./media" with "worker", which runs in the VM: a VM and a pod ' +
          'cannot share one store, so they move together',
      ],
      [
        'backup',
        'services.backup.volumes: shares the named volume "certs" with "worker", which runs in the VM: a VM and a pod ' +
          'cannot share one store, so they move together',
      ],
    ]);
  });

  test('a file every user mounts read-only, and the Docker socket, do not bind services together', () => {
    const moved = groupByStorage(all, { inVm });
    expect(moved.has('reader')).toBe(false);
  });

  test('the group grows through every store it shares', () => {
    const chain = services(`
services:
  agent:
    image: a:1
    volumes: ["/var/run/docker.sock:/var/run/docker.sock", "a:/a"]
  middle:
    image: m:1
    volumes: ["a:/a", "./b:/b"]
  last:
    image: l:1
    volumes: ["./b:/b:ro"]
volumes:
  a: {}
`);
    expect([...groupByStorage(chain, { inVm: new Map([['agent', ['x']]]) }).keys()]).toEqual(['middle', 'last']);
  });

  test('fails, with the choice to make, when a service chosen as a container shares a store with the VM', () => {
    expect(() =>
      groupByStorage(all, { inVm, pinned: new Map([['server', 'services["server"].target is "container"']]) }),
    ).toThrow(
      'services.server shares the bind "./media" with "worker", which runs in the VM, and services["server"].target is ' +
        '"container": a VM and a pod cannot share one store. Allowed: every service that writes a named volume or bind ' +
        'directory on the same side of the split. Fix: run "server" in the VM too (remove its container target), or ' +
        'keep "worker" a container (target: container), or give each its own volume.',
    );
  });
});
