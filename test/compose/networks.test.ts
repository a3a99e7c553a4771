import { errorOf, load, web } from './helpers';

describe('networks', () => {
  test('service networks with aliases and addresses; top-level internal, external, ipam', () => {
    const { model } = load(
      `${web(
        [
          'networks:',
          '  front:',
          '  back: {aliases: [api, api], ipv4_address: 172.20.0.10, ipv6_address: "fd00::10"}',
        ].join('\n'),
      )}networks:\n  front: {driver: bridge}\n  back:\n    internal: true\n    enable_ipv6: true\n` +
        '    ipam: {config: [{subnet: 172.20.0.0/16}, {subnet: "fd00::/64"}]}\n  shared: {external: true}\n',
    );
    expect(model.services[0].networks.map((n) => ({ ...n, at: undefined }))).toEqual([
      { name: 'back', aliases: ['api'], ipv4Address: '172.20.0.10', ipv6Address: 'fd00::10', at: undefined },
      { name: 'front', aliases: [], at: undefined },
    ]);
    expect(model.networks.map((n) => ({ ...n, at: undefined }))).toEqual([
      {
        name: 'back',
        internal: true,
        external: false,
        subnets: ['172.20.0.0/16', 'fd00::/64'],
        enableIpv6: true,
        labels: {},
        at: undefined,
      },
      {
        name: 'front',
        internal: false,
        external: false,
        driver: 'bridge',
        subnets: [],
        enableIpv6: false,
        labels: {},
        at: undefined,
      },
      { name: 'shared', internal: false, external: true, subnets: [], enableIpv6: false, labels: {}, at: undefined },
    ]);
  });

  test('a service without networks joins the implicit default network', () => {
    const { model } = load(web(''));
    expect(model.services[0].networks.map((n) => n.name)).toEqual(['default']);
    expect(model.networks.map((n) => n.name)).toEqual(['default']);
  });

  test.each([
    ['networks: [nope]', 'the service uses network "nope", which is not declared under the top-level networks'],
    ['network_mode: host\nnetworks: [default]', 'network_mode and networks cannot be used together'],
  ])('%s is refused: %s', (body, problem) => {
    expect(errorOf(() => load(web(body))).problem).toBe(problem);
  });
});
