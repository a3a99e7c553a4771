import { ComposeWarning } from '../../lib/compose/errors';
import { formatWarningGroup, groupWarnings } from '../../lib/compose/warning-groups';

const bind = (service: string, line: number, index = 0): ComposeWarning => ({
  code: 'directory-bind',
  message: 'bind mount "./dags" does not exist; /opt/airflow/dags becomes an empty emptyDir',
  at: { file: 'compose.yaml', path: `services.${service}.volumes[${index}]`, line, column: 7 },
});

describe('groupWarnings', () => {
  test('identical findings of several services through an anchor are one line naming them all, sorted', () => {
    const groups = groupWarnings([bind('worker', 76), bind('api', 76), bind('scheduler', 76)]);
    expect(groups).toHaveLength(1);
    expect(groups[0].services).toEqual(['api', 'scheduler', 'worker']);
    expect(groups[0].warnings).toHaveLength(3);
    expect(formatWarningGroup(groups[0])).toBe(
      'compose.yaml:76:7: services.*.volumes[0] (api, scheduler, worker): ' +
        'bind mount "./dags" does not exist; /opt/airflow/dags becomes an empty emptyDir',
    );
  });

  test('the same finding written out in each service (different lines) is grouped without a line number', () => {
    const [group] = groupWarnings([bind('api', 10), bind('worker', 20)]);
    expect(formatWarningGroup(group)).toBe(
      'compose.yaml: services.*.volumes[0] (api, worker): ' +
        'bind mount "./dags" does not exist; /opt/airflow/dags becomes an empty emptyDir',
    );
  });

  test('the same finding at different list indices is grouped, the index written [*]', () => {
    const [group, ...rest] = groupWarnings([bind('api', 10, 3), bind('worker', 20, 5), bind('web', 30, 3)]);
    expect(rest).toEqual([]);
    expect(formatWarningGroup(group)).toBe(
      'compose.yaml: services.*.volumes[*] (api, web, worker): ' +
        'bind mount "./dags" does not exist; /opt/airflow/dags becomes an empty emptyDir',
    );
  });

  test('findings that differ in code, message, file or key path stay apart, in the order found', () => {
    const other = { ...bind('api', 76), message: 'another message' };
    const elsewhere = { ...bind('api', 76), at: { ...bind('api', 76).at, file: 'override.yaml' } };
    const groups = groupWarnings([
      bind('api', 76),
      bind('api', 77, 1),
      other,
      elsewhere,
      { ...bind('worker', 76), code: 'other-code' },
    ]);
    expect(groups.map((g) => g.warnings.length)).toEqual([1, 1, 1, 1, 1]);
    expect(groups.map((g) => formatWarningGroup(g))).toEqual([
      'compose.yaml:76:7: services.api.volumes[0]: bind mount "./dags" does not exist; /opt/airflow/dags becomes an empty emptyDir',
      'compose.yaml:77:7: services.api.volumes[1]: bind mount "./dags" does not exist; /opt/airflow/dags becomes an empty emptyDir',
      'compose.yaml:76:7: services.api.volumes[0]: another message',
      'override.yaml:76:7: services.api.volumes[0]: bind mount "./dags" does not exist; /opt/airflow/dags becomes an empty emptyDir',
      'compose.yaml:76:7: services.worker.volumes[0]: bind mount "./dags" does not exist; /opt/airflow/dags becomes an empty emptyDir',
    ]);
  });

  test('project-level findings are grouped only when they are the same in every part', () => {
    const project: ComposeWarning = {
      code: 'unset-variable',
      message: 'variable X is not set',
      at: { file: 'compose.yaml', path: 'volumes.data', line: 3 },
    };
    expect(
      groupWarnings([project, project, { ...project, at: { ...project.at, line: 4 } }]).map((g) => g.warnings.length),
    ).toEqual([2, 1]);
  });

  test('a control character of a hostile file is written as \\uXXXX', () => {
    const [group] = groupWarnings([
      { ...bind('api', 1), message: 'bad\u001b[2Jname' },
      { ...bind('web', 1), message: 'bad\u001b[2Jname' },
    ]);
    expect(formatWarningGroup(group)).toBe('compose.yaml:1:7: services.*.volumes[0] (api, web): bad\\u001b[2Jname');
  });
});
