import { errorOf, load, service, web } from './helpers';

function ports(...entries: string[]): string[] {
  const svc = service(web(`ports:\n${entries.map((e) => `  - ${e}`).join('\n')}`));
  return svc.ports.map((p) => `${p.hostIp ?? '*'}|${p.published ?? '-'}|${p.target}/${p.protocol}|${p.mode}`);
}

describe('ports', () => {
  test.each<[string, string[]]>([
    ['"80"', ['*|-|80/tcp|ingress']],
    ['80', ['*|-|80/tcp|ingress']],
    ['"8080:80"', ['*|8080|80/tcp|ingress']],
    ['"127.0.0.1:8080:80/udp"', ['127.0.0.1|8080|80/udp|ingress']],
    ['"6379/udp"', ['*|-|6379/udp|ingress']],
    ['"53:53/SCTP"', ['*|53|53/sctp|ingress']],
    ['"3000-3002"', ['*|-|3000/tcp|ingress', '*|-|3001/tcp|ingress', '*|-|3002/tcp|ingress']],
    ['"9090-9091:8080-8081"', ['*|9090|8080/tcp|ingress', '*|9091|8081/tcp|ingress']],
    ['"127.0.0.1:5000-5001:5000-5001"', ['127.0.0.1|5000|5000/tcp|ingress', '127.0.0.1|5001|5001/tcp|ingress']],
    ['"[::1]:8080:80"', ['::1|8080|80/tcp|ingress']],
    ['"::1:8080:80"', ['::1|8080|80/tcp|ingress']],
    ['"[fe80::1]:53:53/udp"', ['fe80::1|53|53/udp|ingress']],
    ['":8443:443"', ['*|8443|443/tcp|ingress']],
    ['"127.0.0.1::80"', ['127.0.0.1|-|80/tcp|ingress']],
    ['{target: 80}', ['*|-|80/tcp|ingress']],
    ['{target: 8443, published: "8443", protocol: tcp}', ['*|8443|8443/tcp|ingress']],
    ['{target: 3478, published: 3478, protocol: udp, host_ip: 10.0.0.1, mode: host}', ['10.0.0.1|3478|3478/udp|host']],
    ['{target: "80", published: "8000-8001"}', ['*|8000|80/tcp|ingress']],
  ])('%s', (entry, expected) => {
    expect(ports(entry)).toEqual(expected);
  });

  test('interpolated parts, including a host IP carried by a default', () => {
    const svc = service(
      web(
        [
          'ports:',
          '  - "${WEB_PORT:-8080}:80"',
          '  - "${SQL_PORT:-127.0.0.1:13306}:3306"',
          '  - "${HTTPS_BIND:-}:${HTTPS_PORT:-443}:443"',
        ].join('\n'),
      ),
      { env: { WEB_PORT: '9000' } },
    );
    expect(svc.ports.map((p) => [p.hostIp, p.published, p.target])).toEqual([
      [undefined, 9000, 80],
      [undefined, 443, 443],
      ['127.0.0.1', 13306, 3306],
    ]);
  });

  test('long syntax keeps name and app_protocol; entries are sorted and de-duplicated', () => {
    const svc = service(
      web(
        [
          'ports:',
          '  - {target: 80, published: 8080, name: web, app_protocol: http}',
          '  - "53:53/udp"',
          '  - "53:53/tcp"',
          '  - "53:53/udp"',
        ].join('\n'),
      ),
    );
    expect(svc.ports.map((p) => `${p.target}/${p.protocol}`)).toEqual(['53/tcp', '53/udp', '80/tcp']);
    expect(svc.ports[2]).toMatchObject({ name: 'web', appProtocol: 'http', published: 8080 });
    expect(svc.ports[2].at).toEqual({ file: 'compose.yaml', path: 'services.web.ports[0]', line: 5, column: 9 });
  });

  test('a host range for one container port publishes the first port, with a warning', () => {
    expect(ports('"8000-8010:80"')).toEqual(['*|8000|80/tcp|ingress']);
    expect(load(web('ports: ["8000-8010:80"]')).warnings).toEqual([
      {
        code: 'host-port-range',
        message: 'a host port range for one container port is published on its first port 8000',
        at: { file: 'compose.yaml', path: 'services.web.ports[0]', line: 4, column: 13 },
      },
    ]);
  });

  test('expose: numbers, strings, ranges and protocols, sorted and unique', () => {
    const svc = service(web('expose:\n  - 6379\n  - "3000-3001"\n  - "53/udp"\n  - "6379"'));
    expect(svc.expose.map((p) => `${p.target}/${p.protocol}`)).toEqual(['53/udp', '3000/tcp', '3001/tcp', '6379/tcp']);
  });

  test('a bad port names the entry, the value and what is allowed', () => {
    expect(errorOf(() => service(web('ports:\n  - "80:abc"'))).message).toBe(
      'compose.yaml:5:9: services.web.ports[0]: invalid container port "abc" (got "80:abc"). ' +
        'Allowed: a port number 1-65535 or a range such as 3000-3005; the whole entry: "80", "8080:80", ' +
        '"127.0.0.1:8080:80/udp", "[::1]:8080:80", ranges such as "3000-3005" or "9090-9091:8080-8081", a number, ' +
        'or the long syntax {target, published, protocol, host_ip, mode}. ' +
        'Fix: write the port as a number, for example "8080:80".',
    );
  });

  test.each([
    ['"70000"', 'invalid container port "70000"'],
    ['"0:80"', 'invalid host port "0"'],
    ['"80/icmp"', 'invalid protocol "icmp"'],
    ['"1.2.3:80:80"', 'invalid host IP "1.2.3"'],
    ['"3000-3001:80-82"', 'the host and container port ranges have different lengths'],
    ['"3005-3000"', 'invalid container port "3005-3000"'],
    ['{published: 80}', 'a long-syntax port needs a target'],
    ['{target: 80, mode: swarm}', 'invalid port mode'],
    ['[80]', 'expected a port, got a list'],
  ])('%s is refused: %s', (entry, problem) => {
    expect(errorOf(() => ports(entry)).problem).toBe(problem);
  });

  test("an interpolated bad port quotes the text as written, not the variable's value", () => {
    const err = errorOf(() => service(web('ports:\n  - "${PORT}:80"'), { env: { PORT: 'abc' } }));
    expect(err.problem).toBe('invalid host port "abc"');
    expect(err.value).toBe('${PORT}:80');
  });

  test('ports must be a list', () => {
    expect(errorOf(() => service(web('ports: "80:80"'))).message).toBe(
      'compose.yaml:4:12: services.web.ports: expected a list, got a string (got "80:80"). ' +
        'Allowed: a list of ports such as "8080:80".',
    );
  });
});
