import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { contentOf, describeFsError, readProjectFile, resolveInProject, statPath } from '../../lib/compose/files';
import { errorOf } from './helpers';
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

  test('a FIFO or a device is special: reading one could block or never end', () => {
    execFileSync('mkfifo', [path.join(project.dir, 'fifo')]);
    expect(statPath(path.join(project.dir, 'fifo'))).toEqual({ kind: 'special' });
    expect(statPath('/dev/zero')).toEqual({ kind: 'special' });
  });

  test('UTF-8 text stays text; NUL bytes or invalid UTF-8 become base64', () => {
    expect(contentOf('a', Buffer.from('héllo\n'))).toEqual({ path: 'a', text: 'héllo\n', binary: false });
    expect(contentOf('b', Buffer.from([104, 0, 105]))).toEqual({ path: 'b', text: 'aABp', binary: true });
    expect(contentOf('c', Buffer.from([0xff, 0xfe]))).toEqual({ path: 'c', text: '//4=', binary: true });
  });
});

describe('readProjectFile', () => {
  const at = { file: 'compose.yaml', path: 'services.web.env_file', line: 4, column: 15 };

  test('a read error is a ComposeError naming the file as written and the key path, never the machine path', () => {
    const err = errorOf(() => readProjectFile('env file', 'conf', path.join(project.dir, 'conf'), at));
    expect(err.message).toBe('compose.yaml:4:15: services.web.env_file: env file "conf" is a directory. Fix: point it at a file.');
    expect(err.message).not.toContain(project.dir);
  });

  test.each([
    ['EACCES', 'permission denied'], ['EPERM', 'permission denied'], ['ENOENT', 'it does not exist'],
    ['ELOOP', 'a loop of symbolic links'], ['EIO', 'read error EIO'],
  ])('%s reads "%s"', (code, words) => {
    expect(describeFsError(Object.assign(new Error('x'), { code }))).toBe(words);
  });
});
