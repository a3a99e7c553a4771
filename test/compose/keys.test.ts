import * as fs from 'fs';
import * as path from 'path';
import * as keys from '../../lib/compose/keys';
import { closestKey, editDistance, KeyTable, MODELLED } from '../../lib/compose/keys';
import { SCHEMAS_DIR } from '../support/shared';

/** The vendored compose-spec JSON Schema: read by this test only, never at run time. */
const SCHEMA = JSON.parse(fs.readFileSync(
  path.join(SCHEMAS_DIR, 'compose/compose-spec.json'), 'utf8',
)) as { properties: Record<string, unknown>; definitions: Record<string, Schema> };

interface Schema {
  properties?: Record<string, Schema>;
  oneOf?: Schema[];
  items?: Schema;
  patternProperties?: Record<string, Schema>;
  $ref?: string;
}

function deref(schema: Schema): Schema {
  return schema.$ref ? SCHEMA.definitions[schema.$ref.replace('#/definitions/', '')] : schema;
}

/** The property names of a schema node, looking through $ref, oneOf, items and pattern properties. */
function propertiesOf(schema: Schema, ...steps: string[]): string[] {
  let node = deref(schema);
  for (const step of steps) {
    if (step === '[]') {
      node = deref(node.items ?? (node.oneOf ?? []).find((o) => o.items)?.items ?? node);
      node = deref((node.oneOf ?? []).find((o) => deref(o).properties) ?? node);
    } else if (step === '*') {
      const pattern = Object.values(node.patternProperties ?? {})[0] ?? (node.oneOf ?? []).map(deref)
        .flatMap((o) => Object.values(o.patternProperties ?? {}))[0];
      node = deref(pattern);
      node = deref((node.oneOf ?? []).find((o) => deref(o).properties) ?? node);
    } else {
      node = deref((node.properties ?? {})[step] ?? (node.oneOf ?? []).map(deref).find((o) => o.properties)!.properties![step]);
      node = deref((node.oneOf ?? []).find((o) => deref(o).properties) ?? node);
    }
  }
  return Object.keys(node.properties ?? {}).sort();
}

const service = SCHEMA.definitions.service;

describe('key tables', () => {
  test.each<[string, KeyTable, string[]]>([
    ['TOP_LEVEL_KEYS', keys.TOP_LEVEL_KEYS, Object.keys(SCHEMA.properties).sort()],
    ['SERVICE_KEYS', keys.SERVICE_KEYS, propertiesOf(service)],
    ['BUILD_KEYS', keys.BUILD_KEYS, propertiesOf(service, 'build')],
    ['HEALTHCHECK_KEYS', keys.HEALTHCHECK_KEYS, propertiesOf(SCHEMA.definitions.healthcheck)],
    ['DEPLOY_KEYS', keys.DEPLOY_KEYS, propertiesOf(SCHEMA.definitions.deployment)],
    ['RESOURCES_KEYS', keys.RESOURCES_KEYS, propertiesOf(SCHEMA.definitions.deployment, 'resources')],
    ['LIMITS_KEYS', keys.LIMITS_KEYS, propertiesOf(SCHEMA.definitions.deployment, 'resources', 'limits')],
    ['RESERVATIONS_KEYS', keys.RESERVATIONS_KEYS, propertiesOf(SCHEMA.definitions.deployment, 'resources', 'reservations')],
    ['DEVICE_REQUEST_KEYS', keys.DEVICE_REQUEST_KEYS, propertiesOf(SCHEMA.definitions.devices, '[]')],
    ['RESTART_POLICY_KEYS', keys.RESTART_POLICY_KEYS, propertiesOf(SCHEMA.definitions.deployment, 'restart_policy')],
    ['PORT_KEYS', keys.PORT_KEYS, propertiesOf(service, 'ports', '[]')],
    ['SERVICE_VOLUME_KEYS', keys.SERVICE_VOLUME_KEYS, propertiesOf(service, 'volumes', '[]')],
    ['SERVICE_VOLUME_VOLUME_KEYS', keys.SERVICE_VOLUME_VOLUME_KEYS, propertiesOf(service, 'volumes', '[]', 'volume')],
    ['SERVICE_VOLUME_TMPFS_KEYS', keys.SERVICE_VOLUME_TMPFS_KEYS, propertiesOf(service, 'volumes', '[]', 'tmpfs')],
    ['SERVICE_NETWORK_KEYS', keys.SERVICE_NETWORK_KEYS, propertiesOf(service, 'networks', '*')],
    ['DEPENDS_ON_KEYS', keys.DEPENDS_ON_KEYS, propertiesOf(service, 'depends_on', '*')],
    ['FILE_REFERENCE_KEYS', keys.FILE_REFERENCE_KEYS, propertiesOf(SCHEMA.definitions.service_config_or_secret, '[]')],
    ['ENV_FILE_KEYS', keys.ENV_FILE_KEYS, propertiesOf(SCHEMA.definitions.env_file, '[]')],
    ['VOLUME_KEYS', keys.VOLUME_KEYS, propertiesOf(SCHEMA.definitions.volume)],
    ['NETWORK_KEYS', keys.NETWORK_KEYS, propertiesOf(SCHEMA.definitions.network)],
    ['IPAM_KEYS', keys.IPAM_KEYS, propertiesOf(SCHEMA.definitions.network, 'ipam')],
    ['IPAM_CONFIG_KEYS', keys.IPAM_CONFIG_KEYS, propertiesOf(SCHEMA.definitions.network, 'ipam', 'config', '[]')],
    ['SECRET_KEYS', keys.SECRET_KEYS, propertiesOf(SCHEMA.definitions.secret)],
    ['CONFIG_KEYS', keys.CONFIG_KEYS, propertiesOf(SCHEMA.definitions.config)],
    ['ULIMIT_KEYS', keys.ULIMIT_KEYS, propertiesOf(SCHEMA.definitions.ulimits, '*')],
  ])('%s lists exactly the keys of the compose specification', (_name, table, expected) => {
    expect(expected.length).toBeGreaterThan(0);
    expect(Object.keys(table).sort()).toEqual(expected);
  });

  test('every ignored key says what is ignored', () => {
    for (const table of Object.values(keys).filter((v): v is KeyTable => typeof v === 'object')) {
      for (const [key, use] of Object.entries(table)) {
        expect([key, use === MODELLED || use.length > 20]).toEqual([key, true]);
      }
    }
  });
});

describe('did you mean', () => {
  test('edit distance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  test('suggests close keys only', () => {
    expect(closestKey('enviroment', keys.SERVICE_KEYS)).toBe('environment');
    expect(closestKey('Image', keys.SERVICE_KEYS)).toBe('image');
    expect(closestKey('portz', keys.SERVICE_KEYS)).toBe('ports');
    expect(closestKey('zzzzzzzz', keys.SERVICE_KEYS)).toBeUndefined();
  });
});
