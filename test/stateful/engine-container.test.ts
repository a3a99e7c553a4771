import { Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { CredentialsSecret } from '../../lib/stateful/credentials-secret';
import { EngineContainerProps, engineContainerProps } from '../../lib/stateful/engine-container';
import { DatabaseEngine } from '../../lib/stateful/engine';

function containerProps(props: Partial<EngineContainerProps> & { password?: string } = {}): kplus.ContainerProps {
  const chart = new Chart(Testing.app(), 'test');
  const engine = props.engine ?? DatabaseEngine.REDIS;
  const credentials = new CredentialsSecret(chart, {
    engine,
    host: 'db',
    port: engine.port,
    metadata: { name: 'db-credentials', labels: { app: 'db' } },
    credentials: props.password === undefined ? undefined : { password: props.password },
  });
  const dataClaim = kplus.PersistentVolumeClaim.fromClaimName(chart, 'Claim', 'db-data');
  return engineContainerProps(chart, {
    image: 'redis:7',
    name: 'db',
    port: engine.port,
    dataClaim,
    credentials,
    ...props,
    engine,
  });
}

function envOf(props: kplus.ContainerProps): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(props.envVariables ?? {}).map(([name, value]) => [name, value.value]));
}

test('redis with a password reads it from the Secret and passes it as --requirepass', () => {
  const props = containerProps({ password: 'r-31' });
  expect(props.args).toEqual(['redis-server', '--requirepass', '$(REDIS_PASSWORD)']);
  expect(props.envVariables?.REDIS_PASSWORD.valueFrom).toBeDefined();
  expect(envOf(props).REDIS_PASSWORD).toBeUndefined();
});

test('a variable the caller sets wins over the Secret, and its *_FILE form suppresses it', () => {
  const own = containerProps({ password: 'r-32', env: { REDIS_PASSWORD: kplus.EnvValue.fromValue('mine') } });
  expect(envOf(own).REDIS_PASSWORD).toBe('mine');
  const file = containerProps({
    password: 'r-33',
    env: { REDIS_PASSWORD_FILE: kplus.EnvValue.fromValue('/run/secrets/pw') },
  });
  expect(Object.keys(file.envVariables ?? {})).toEqual(['REDIS_PASSWORD_FILE']);
  expect(file.args).toBeUndefined();
});

test("readiness: the engine's check, none when false, a TCP check for an engine without a command", () => {
  expect(containerProps().readiness).toBeDefined();
  expect(containerProps({ readiness: false }).readiness).toBeUndefined();
  const generic = DatabaseEngine.generic({ name: 'kv', port: 7000, dataPath: '/data' });
  expect(containerProps({ engine: generic }).readiness).toBeDefined();
});

test("the data claim is mounted at the engine's data path; the ports name the engine port", () => {
  const props = containerProps();
  expect(props.volumeMounts?.map((m) => [m.path, m.volume.name])).toEqual([['/data', 'data']]);
  expect(props.ports).toEqual([{ number: 6379, name: 'tcp-6379' }]);
});
