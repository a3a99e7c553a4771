import * as fs from 'fs';
import * as path from 'path';
import * as keys from '../../lib/compose/keys';
import { closestKey, editDistance, KeyTable, MODELLED } from '../../lib/compose/keys';
import { SCHEMAS_DIR, SHARED_DIR } from '../support/shared';

/**
 * The compose-spec JSON Schemas the tables are held to, read by this test only, never at run time: the pinned one,
 * and the current one of compose-go's tests (newer: pre_start, provider, models, …), which skips when absent.
 */
interface SchemaFile {
  properties: Record<string, Schema>;
  definitions?: Record<string, Schema>;
  $defs?: Record<string, Schema>;
}

interface Schema {
  properties?: Record<string, Schema>;
  oneOf?: Schema[];
  items?: Schema;
  patternProperties?: Record<string, Schema>;
  $ref?: string;
}

const PINNED = path.join(SCHEMAS_DIR, 'compose/compose-spec.json');
const CURRENT = path.join(SHARED_DIR, 'peers/compose-go/schema/compose-spec.json');

/** The property names of every table's schema node, looking through $ref, oneOf, items and pattern properties. */
function schemaKeys(file: string): Record<string, string[]> {
  const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as SchemaFile;
  const defs = schema.definitions ?? schema.$defs ?? {};
  const deref = (node: Schema): Schema =>
    node.$ref ? defs[node.$ref.replace(/^#\/(definitions|\$defs)\//, '')] : node;
  const propertiesOf = (start: Schema, ...steps: string[]): string[] => {
    let node = deref(start);
    for (const step of steps) {
      if (step === '[]') {
        node = deref(node.items ?? (node.oneOf ?? []).find((o) => o.items)?.items ?? node);
        node = deref((node.oneOf ?? []).find((o) => deref(o).properties) ?? node);
      } else if (step === '*') {
        const pattern =
          Object.values(node.patternProperties ?? {})[0] ??
          (node.oneOf ?? []).map(deref).flatMap((o) => Object.values(o.patternProperties ?? {}))[0];
        node = deref(pattern);
        node = deref((node.oneOf ?? []).find((o) => deref(o).properties) ?? node);
      } else {
        node = deref(
          (node.properties ?? {})[step] ?? (node.oneOf ?? []).map(deref).find((o) => o.properties)!.properties![step],
        );
        node = deref((node.oneOf ?? []).find((o) => deref(o).properties) ?? node);
      }
    }
    return Object.keys(node.properties ?? {}).sort();
  };
  const service = defs.service;
  const optional = (def: string, table: string, keysOf: () => string[]): Record<string, string[]> =>
    defs[def] ? { [table]: keysOf() } : {};
  const out: Record<string, string[]> = {
    TOP_LEVEL_KEYS: Object.keys(schema.properties).sort(),
    SERVICE_KEYS: propertiesOf(service),
    BUILD_KEYS: propertiesOf(service, 'build'),
    HEALTHCHECK_KEYS: propertiesOf(defs.healthcheck),
    DEPLOY_KEYS: propertiesOf(defs.deployment),
    RESOURCES_KEYS: propertiesOf(defs.deployment, 'resources'),
    LIMITS_KEYS: propertiesOf(defs.deployment, 'resources', 'limits'),
    RESERVATIONS_KEYS: propertiesOf(defs.deployment, 'resources', 'reservations'),
    DEVICE_REQUEST_KEYS: propertiesOf(defs.devices, '[]'),
    RESTART_POLICY_KEYS: propertiesOf(defs.deployment, 'restart_policy'),
    PORT_KEYS: propertiesOf(service, 'ports', '[]'),
    SERVICE_VOLUME_KEYS: propertiesOf(service, 'volumes', '[]'),
    SERVICE_VOLUME_VOLUME_KEYS: propertiesOf(service, 'volumes', '[]', 'volume'),
    SERVICE_VOLUME_TMPFS_KEYS: propertiesOf(service, 'volumes', '[]', 'tmpfs'),
    SERVICE_NETWORK_KEYS: propertiesOf(service, 'networks', '*'),
    DEPENDS_ON_KEYS: propertiesOf(service, 'depends_on', '*'),
    FILE_REFERENCE_KEYS: propertiesOf(defs.service_config_or_secret, '[]'),
    ENV_FILE_KEYS: propertiesOf(defs.env_file, '[]'),
    VOLUME_KEYS: propertiesOf(defs.volume),
    NETWORK_KEYS: propertiesOf(defs.network),
    IPAM_KEYS: propertiesOf(defs.network, 'ipam'),
    IPAM_CONFIG_KEYS: propertiesOf(defs.network, 'ipam', 'config', '[]'),
    SECRET_KEYS: propertiesOf(defs.secret),
    CONFIG_KEYS: propertiesOf(defs.config),
    ULIMIT_KEYS: propertiesOf(defs.ulimits, '*'),
    ...optional('include', 'INCLUDE_KEYS', () => propertiesOf(defs.include, '[]')),
    ...optional('service_hook', 'SERVICE_HOOK_KEYS', () => propertiesOf(defs.service_hook)),
    ...optional('pre_start_hook', 'PRE_START_HOOK_KEYS', () => propertiesOf(defs.pre_start_hook)),
    ...optional('model', 'MODEL_KEYS', () => propertiesOf(defs.model)),
  };
  return out;
}

const TABLES = Object.fromEntries(
  Object.entries(keys).filter(([name, v]) => name.endsWith('_KEYS') && name !== 'GPU_KEYS' && typeof v === 'object'),
) as Record<string, KeyTable>;

describe('key tables', () => {
  const pinned = schemaKeys(PINNED);
  const current = fs.existsSync(CURRENT) ? schemaKeys(CURRENT) : undefined;

  test.each(Object.keys(pinned).sort())('%s lists every key of the pinned compose specification', (name) => {
    expect(pinned[name].length).toBeGreaterThan(0);
    expect(pinned[name].filter((key) => TABLES[name][key] === undefined)).toEqual([]);
  });

  (current ? test.each : test.skip.each)(Object.keys(current ?? { none: [] }).sort())(
    `%s lists every key of the current compose specification${current ? '' : ` (skipped: ${CURRENT} is absent)`}`,
    (name) => {
      expect(current![name].length).toBeGreaterThan(0);
      expect(current![name].filter((key) => TABLES[name]?.[key] === undefined)).toEqual([]);
    },
  );

  (current ? test : test.skip)(
    `no table lists a key that neither specification has${current ? '' : ` (skipped: ${CURRENT} is absent)`}`,
    () => {
      for (const [name, table] of Object.entries(TABLES).filter(
        ([n]) => pinned[n] !== undefined || current?.[n] !== undefined,
      )) {
        const known = new Set([...(pinned[name] ?? []), ...(current?.[name] ?? [])]);
        expect([name, Object.keys(table).filter((key) => !known.has(key))]).toEqual([name, []]);
      }
    },
  );

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
