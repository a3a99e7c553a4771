import { errorOf, service, web } from './helpers';

describe('deploy and legacy resources', () => {
  test('replicas, limits, reservations with GPU devices, restart policy, labels', () => {
    const svc = service(
      web(
        [
          'deploy:',
          '  replicas: 3',
          '  mode: replicated',
          '  labels: [tier=web]',
          '  resources:',
          '    limits: {cpus: "0.5", memory: 512m, pids: 100}',
          '    reservations:',
          '      cpus: 0.25',
          '      memory: 1g',
          '      devices:',
          '        - {driver: nvidia, count: all, capabilities: [gpu, utility]}',
          '        - {capabilities: [gpu], device_ids: ["0", "1"], options: {x: y}}',
          '  restart_policy: {condition: on-failure, delay: 5s, max_attempts: 3, window: 2m}',
        ].join('\n'),
      ),
    );
    expect({ ...svc.deploy, at: undefined }).toEqual({
      replicas: 3,
      mode: 'replicated',
      limits: { cpus: 0.5, memoryBytes: 512 * 1024 ** 2, pids: 100, devices: [] },
      reservations: {
        cpus: 0.25,
        memoryBytes: 1024 ** 3,
        devices: [
          {
            capabilities: ['gpu', 'utility'],
            driver: 'nvidia',
            count: 'all',
            deviceIds: [],
            options: {},
            at: expect.anything(),
          },
          { capabilities: ['gpu'], deviceIds: ['0', '1'], options: { x: 'y' }, at: expect.anything() },
        ],
      },
      restartPolicy: { condition: 'on-failure', delaySeconds: 5, maxAttempts: 3, windowSeconds: 120 },
      labels: { tier: 'web' },
      at: undefined,
    });
  });

  test('legacy mem_limit, mem_reservation, cpus, pids_limit, scale and gpus fill in', () => {
    const svc = service(
      web('mem_limit: 10000Mb\nmem_reservation: 10000\ncpus: 1.5\npids_limit: 50\nscale: 2\ngpus: all'),
    );
    expect(svc.deploy).toMatchObject({
      replicas: 2,
      limits: { cpus: 1.5, memoryBytes: 10000 * 1024 ** 2, pids: 50, devices: [] },
      reservations: { memoryBytes: 10000, devices: [{ capabilities: ['gpu'], count: 'all' }] },
    });
  });

  test('deploy wins over the legacy keys', () => {
    expect(service(web('mem_limit: 1g\ndeploy: {resources: {limits: {memory: 2g}}}')).deploy.limits.memoryBytes).toBe(
      2 * 1024 ** 3,
    );
  });

  test.each([
    ['mem_limit: lots', 'invalid size'],
    ['cpus: half', 'invalid cpus'],
    ['deploy: {replicas: -1}', 'number out of range'],
    ['deploy: {mode: global-job}', 'unsupported deploy mode'],
    ['deploy: {restart_policy: {condition: sometimes}}', 'invalid restart condition'],
    ['deploy: {resources: {reservations: {devices: [{driver: nvidia}]}}}', 'a device request needs capabilities'],
  ])('%s is refused: %s', (body, problem) => {
    expect(errorOf(() => service(web(body))).problem).toBe(problem);
  });
});
