import { DEFAULT_FUZZ_SEED, FUZZ_PROPERTIES, FuzzProperty, defaultRunsOf } from '../fuzz/fuzz-settings';
import { K8S_RULES } from '../support/k8s-rules';
import { docText, readmeCount } from '../support/readme';

/**
 * docs/testing.md ("What is checked") states what the suite runs: the property-based runs of one `npm test` (the
 * defaults), the seed, and the Kubernetes rules. (The document counts are held to it by the tests that
 * count them: every-output and cli-outputs.)
 */

test('the property-based runs per npm test are the sum of the defaults', () => {
  const total = (Object.keys(FUZZ_PROPERTIES) as FuzzProperty[]).reduce((n, p) => n + defaultRunsOf(p), 0);
  expect(readmeCount('property-based runs')).toBe(total);
  expect(docText('docs/testing.md')).toContain(`seed ${DEFAULT_FUZZ_SEED}`);
});

test('the Kubernetes rules', () => {
  expect(readmeCount('Kubernetes rules')).toBe(K8S_RULES.length);
});
