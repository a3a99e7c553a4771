import { loadComposeFromString } from '../../lib/compose/load';
import { ComposeService } from '../../lib/compose/model';
import { vmListenPorts } from '../../lib/vm/vm-listen-ports';
import { tempDir } from './tools';

function service(text: string): ComposeService {
  return loadComposeFromString(text, { env: {}, projectDir: tempDir('listen') }).model.services[0];
}

const brief = (s: ComposeService, inferred: number[] = []) =>
  vmListenPorts(s, inferred).map((p) => `${p.port}/${p.protocol} → ${p.listen} (${p.origin})`);

describe('vmListenPorts: where each port of a service in the VM is reached (the Service targetPort)', () => {
  test('a published port listens on its host port, a local-only one too; expose and inferred ports on the container port', () => {
    const cache = service(`
services:
  cache:
    image: redis:7.4
    ports: ["127.0.0.1:7654:6379", "8080:80", "9000"]
    expose: ["80", "7000"]
`);
    expect(brief(cache, [6380, 80])).toEqual([
      '80/tcp → 8080 (ports)',
      '6379/tcp → 7654 (ports)',
      '6380/tcp → 6380 (inferred)',
      '7000/tcp → 7000 (expose)',
      '9000/tcp → 9000 (ports)',
    ]);
  });

  test('with the host network every port is the VM port itself', () => {
    const media = service(`
services:
  plex:
    image: linuxserver/plex:1.41.0
    network_mode: host
    ports: ["8443:443/tcp"]
`);
    expect(brief(media, [32400])).toEqual(['443/tcp → 443 (ports)', '32400/tcp → 32400 (inferred)']);
  });

  test('UDP keeps its protocol; one entry per container port and protocol, the first published one wins', () => {
    const dns = service(`
services:
  dns:
    image: pihole/pihole:2024.07.0
    ports: ["53:53/udp", "53:53/tcp", "5353:53/udp"]
`);
    expect(brief(dns)).toEqual(['53/tcp → 53 (ports)', '53/udp → 53 (ports)']);
  });
});
