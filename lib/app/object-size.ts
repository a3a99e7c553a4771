import { ApiObject } from 'cdk8s';
import { IConstruct } from 'constructs';

/** The most data a ConfigMap or a Secret may hold: the API server refuses more (`MaxSecretSize`, 1 MiB). */
export const MAX_OBJECT_DATA_BYTES = 1024 * 1024;

/**
 * The ConfigMaps and Secrets under `scope` whose data is over the API server's limit, one message each, naming the
 * key that takes it past the limit (keys in the order the object has them) and the largest key. The API server counts
 * the values' bytes: text as UTF-8, `binaryData` and a Secret's `data` decoded from base64.
 */
export function oversizedObjects(scope: IConstruct): string[] {
  const problems: string[] = [];
  for (const object of scope.node.findAll()) {
    if (!(object instanceof ApiObject) || (object.kind !== 'ConfigMap' && object.kind !== 'Secret')) {
      continue;
    }
    const json = object.toJson();
    const secret = object.kind === 'Secret';
    const sizes: [string, number][] = [
      ...Object.entries<string>(json.data ?? {}).map(([k, v]): [string, number] => [
        k,
        secret ? decodedLength(v) : Buffer.byteLength(v, 'utf8'),
      ]),
      ...Object.entries<string>(json.binaryData ?? {}).map(([k, v]): [string, number] => [k, decodedLength(v)]),
      ...Object.entries<string>(json.stringData ?? {}).map(([k, v]): [string, number] => [
        k,
        Buffer.byteLength(v, 'utf8'),
      ]),
    ];
    let total = 0;
    let crossing: [string, number] | undefined;
    for (const entry of sizes) {
      total += entry[1];
      if (total > MAX_OBJECT_DATA_BYTES && crossing === undefined) {
        crossing = entry;
      }
    }
    if (!crossing) {
      continue;
    }
    const largest = sizes.reduce((a, b) => (b[1] > a[1] ? b : a));
    problems.push(
      `the ${object.kind} "${object.name}" would hold ${bytes(total)} of data in ${sizes.length} ` +
        `key${sizes.length === 1 ? '' : 's'}, over the ${bytes(MAX_OBJECT_DATA_BYTES)} the API server accepts: the key ` +
        `"${crossing[0]}" (${bytes(crossing[1])}) takes it past the limit` +
        `${largest[1] > crossing[1] ? `, and the largest key is "${largest[0]}" (${bytes(largest[1])})` : ''}. ` +
        'Fix: shorten the value or the file behind that key, use it in fewer variables, or put large files in a ' +
        'named volume and copy them in after deploying',
    );
  }
  return problems;
}

/** The byte length of base64 text once decoded. */
function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** A byte count in words: `1,048,576 bytes (1 MiB)`, or `524,288,000 bytes (500 MiB)`. */
function bytes(n: number): string {
  const mib = n / MAX_OBJECT_DATA_BYTES;
  const shown = mib >= 1 ? ` (${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB)` : '';
  return `${n.toLocaleString('en-US')} bytes${shown}`;
}
