import { loadComposeFromString } from '../../lib/compose/load';
import { ComposeService } from '../../lib/compose/model';
import { planVmPorts, renderVmPorts, vmListenPort } from '../../lib/vm/subset-ports';

function services(text: string): readonly ComposeService[] {
  return loadComposeFromString(text, { env: {} }).model.services;
}

describe('planVmPorts', () => {
  test('published and exposed ports each get a VM port, sorted; a port bound to one address listens on every address of the VM, with a warning', () => {
    const warnings: string[] = [];
    const all = services(`
services:
  web:
    image: nginx:1.25
    ports: ["8080:80", "127.0.0.1:7654:6379", "53:53/udp"]
    expose: ["80", "9113"]
  db:
    image: postgres:16
    expose: ["5432"]
`);
    const ports = planVmPorts(all, (code, message, at) => warnings.push(`${code} ${at.path}: ${message}`));
    expect(ports).toEqual([
      { service: 'db', target: 5432, hostPort: 5432, protocol: 'tcp', origin: 'expose' },
      { service: 'web', target: 53, hostPort: 53, protocol: 'udp', origin: 'ports' },
      { service: 'web', target: 80, hostPort: 8080, protocol: 'tcp', origin: 'ports' },
      { service: 'web', target: 6379, hostPort: 7654, protocol: 'tcp', origin: 'ports' },
      { service: 'web', target: 9113, hostPort: 9113, protocol: 'tcp', origin: 'expose' },
    ]);
    expect(warnings).toEqual([
      'local-only-port services.web.ports[1]: bound to 127.0.0.1 on the compose host; in the VM it listens on every ' +
        "address (port 7654), where the pod network reaches it: the namespace's NetworkPolicies decide who may",
    ]);
    const web = all.find((s) => s.name === 'web')!;
    expect(
      renderVmPorts(
        web,
        ports.filter((p) => p.service === 'web'),
      ),
    ).toEqual(['53:53/udp', '8080:80/tcp', '7654:6379/tcp', '9113:9113/tcp']);
  });

  test('vmListenPort: the published host port when compose publishes one, else the container port', () => {
    expect(vmListenPort({ target: 6379, published: 7654 })).toBe(7654);
    expect(vmListenPort({ target: 6379 })).toBe(6379);
  });

  test('host networking publishes the container ports as they are, and its compose service lists none', () => {
    const all = services(
      'services:\n  agent: {image: agent:1, network_mode: host, ports: ["9100:9100"], expose: ["9200"]}\n',
    );
    const ports = planVmPorts(all, () => undefined);
    expect(ports.map((p) => `${p.hostPort}:${p.target}/${p.protocol} ${p.origin}`)).toEqual([
      '9100:9100/tcp ports',
      '9200:9200/tcp expose',
    ]);
    expect(renderVmPorts(all[0], ports)).toEqual([]);
  });

  test('fails when two services need the same VM port and protocol', () => {
    const all = services('services:\n  a: {image: a:1, ports: ["80:80"]}\n  b: {image: b:1, ports: ["80:8080"]}\n');
    expect(() => planVmPorts(all, () => undefined)).toThrow(
      'services.a.ports[0] and services.b.ports[0] both need port 80/tcp on the VM',
    );
    const udp = services('services:\n  a: {image: a:1, ports: ["80:80"]}\n  b: {image: b:1, ports: ["80:80/udp"]}\n');
    expect(planVmPorts(udp, () => undefined).map((p) => `${p.service} ${p.hostPort}/${p.protocol}`)).toEqual([
      'a 80/tcp',
      'b 80/udp',
    ]);
  });
});
