import { Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { KubeSecret } from '../../imports/k8s';
import { MAX_OBJECT_DATA_BYTES, oversizedObjects } from '../../lib/app/object-size';

/** The API server's 1 MiB limit on a ConfigMap's or Secret's data (issue 25, finding 11). */

function chart(): Chart {
  return new Chart(Testing.app(), 'test');
}

test('data of exactly 1 MiB passes; one byte more is refused, naming the key that crosses the limit', () => {
  const ok = chart();
  new kplus.ConfigMap(ok, 'a', { metadata: { name: 'a' }, data: { x: 'x'.repeat(MAX_OBJECT_DATA_BYTES - 1), y: 'y' } });
  expect(oversizedObjects(ok)).toEqual([]);
  const over = chart();
  new kplus.ConfigMap(over, 'a', { metadata: { name: 'a' }, data: { x: 'x'.repeat(MAX_OBJECT_DATA_BYTES), y: 'yy' } });
  expect(oversizedObjects(over)).toEqual([
    'the ConfigMap "a" would hold 1,048,578 bytes (1.0 MiB) of data in 2 keys, over the 1,048,576 bytes (1 MiB) the ' +
      'API server accepts: the key "y" (2 bytes) takes it past the limit, and the largest key is "x" (1,048,576 bytes ' +
      '(1 MiB)). Fix: shorten the value or the file behind that key, use it in fewer variables, or put large files ' +
      'in a named volume and copy them in after deploying',
  ]);
});

test('text counts as UTF-8, binaryData and Secret data as their decoded bytes', () => {
  const scope = chart();
  // 2 bytes per "é": 600 KiB of characters are 1.2 MiB.
  new kplus.ConfigMap(scope, 'text', { metadata: { name: 'text' }, data: { t: 'é'.repeat(600 * 1024) } });
  // 700 KiB decoded each: two are over, one is not.
  const b64 = Buffer.alloc(700 * 1024).toString('base64');
  new kplus.ConfigMap(scope, 'binary', { metadata: { name: 'binary' }, binaryData: { b: b64 } });
  new KubeSecret(scope, 'secret', { metadata: { name: 'secret' }, data: { s1: b64, s2: b64 } });
  const problems = oversizedObjects(scope);
  expect(problems.map((p) => p.slice(0, p.indexOf(' would')))).toEqual(['the ConfigMap "text"', 'the Secret "secret"']);
  expect(problems[1]).toContain('would hold 1,433,600 bytes (1.4 MiB) of data in 2 keys');
});
