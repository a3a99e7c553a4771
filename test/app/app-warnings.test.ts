import { AppWarnings } from '../../lib/app/app-warnings';
import { Redactor } from '../../lib/compose/sensitive';

const AT = { file: 'compose.yaml', path: 'services.web', line: 3, column: 5 };

describe('AppWarnings', () => {
  test('keeps the findings in the order found, each message redacted', () => {
    const redactor = new Redactor();
    const warnings = new AppWarnings(redactor);
    warnings.warn('first', 'plain', AT);
    redactor.add('s3cret-value-91c2');
    warnings.warn('second', 'quotes s3cret-value-91c2 here', AT);
    expect(warnings.list.map((w) => w.code)).toEqual(['first', 'second']);
    expect(warnings.list[1].message).not.toContain('s3cret-value-91c2');
    expect(warnings.list[1].at).toBe(AT);
  });

  test('warnOnce reports a key once, whatever the message', () => {
    const warnings = new AppWarnings(new Redactor());
    warnings.warnOnce('host:db', 'ambiguous-host', 'one', AT);
    warnings.warnOnce('host:db', 'ambiguous-host', 'two', AT);
    warnings.warnOnce('host:web', 'ambiguous-host', 'three', AT);
    expect(warnings.list.map((w) => w.message)).toEqual(['one', 'three']);
  });

  test("addAll redacts what it is told to, and keeps the loader's as they are", () => {
    const redactor = new Redactor();
    redactor.add('another-secret-4b7e');
    const warnings = new AppWarnings(redactor);
    const found = [{ code: 'x', message: 'has another-secret-4b7e', at: AT }];
    warnings.addAll(found, false);
    warnings.addAll(found, true);
    expect(warnings.list[0].message).toBe('has another-secret-4b7e');
    expect(warnings.list[1].message).not.toContain('another-secret-4b7e');
  });
});
