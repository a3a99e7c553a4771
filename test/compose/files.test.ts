import * as fs from 'fs';
import * as path from 'path';
import { contentOf, resolveInProject, statPath } from '../../lib/compose/files';
import { makeProject } from './helpers';

const project = makeProject({ 'conf/app.conf': 'a=1\n', 'sub/.keep': '' });
fs.symlinkSync('/etc', path.join(project.dir, 'etc-link'));
fs.symlinkSync(path.join(project.dir, 'conf'), path.join(project.dir, 'conf-link'));
afterAll(() => project.cleanup());

describe('resolveInProject', () => {
  test.each([
    ['./conf/app.conf', 'inside'],
    ['conf', 'inside'],
    ['./missing/deeper', 'inside'],
    ['sub/../conf', 'inside'],
    ['./conf-link/app.conf', 'inside'],
    ['../outside', 'outside'],
    ['/etc/passwd', 'outside'],
    ['./etc-link/passwd', 'outside'],
    ['~/x', 'outside'],
    ['~', 'outside'],
  ])('%s is %s', (written, kind) => {
    expect(resolveInProject(project.dir, written).kind).toBe(kind);
  });

  test('an absolute path inside the project is inside', () => {
    expect(resolveInProject(project.dir, path.join(project.dir, 'conf'))).toEqual({
      kind: 'inside', absolute: path.join(project.dir, 'conf'),
    });
  });
});

describe('statPath and contentOf', () => {
  test('tells files, directories and missing paths apart', () => {
    expect(statPath(path.join(project.dir, 'conf/app.conf'))).toEqual({ kind: 'file', size: 4 });
    expect(statPath(path.join(project.dir, 'conf'))).toEqual({ kind: 'directory' });
    expect(statPath(path.join(project.dir, 'nope'))).toEqual({ kind: 'missing' });
  });

  test('UTF-8 text stays text; NUL bytes or invalid UTF-8 become base64', () => {
    expect(contentOf('a', Buffer.from('héllo\n'))).toEqual({ path: 'a', text: 'héllo\n', binary: false });
    expect(contentOf('b', Buffer.from([104, 0, 105]))).toEqual({ path: 'b', text: 'aABp', binary: true });
    expect(contentOf('c', Buffer.from([0xff, 0xfe]))).toEqual({ path: 'c', text: '//4=', binary: true });
  });
});
