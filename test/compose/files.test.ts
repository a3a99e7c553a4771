import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import {
  contentOf,
  describeFsError,
  ReadOnce,
  readProjectFile,
  resolveInProject,
  statPath,
  textOf,
} from '../../lib/compose/files';
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
      kind: 'inside',
      absolute: path.join(project.dir, 'conf'),
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
    expect(err.message).toBe(
      'compose.yaml:4:15: services.web.env_file: env file "conf" is a directory. Fix: point it at a file.',
    );
    expect(err.message).not.toContain(project.dir);
  });

  test.each([
    ['EACCES', 'permission denied'],
    ['EPERM', 'permission denied'],
    ['ENOENT', 'it does not exist'],
    ['ELOOP', 'a loop of symbolic links'],
    ['EIO', 'read error EIO'],
  ])('%s reads "%s"', (code, words) => {
    expect(describeFsError(Object.assign(new Error('x'), { code }))).toBe(words);
  });
});

describe('ReadOnce', () => {
  const at = { file: 'compose.yaml', path: 'secrets.s.file' };

  test('a file is read once per instance and limits; another folder or limit reads it again', () => {
    const file = path.join(project.dir, 'once.txt');
    fs.writeFileSync(file, 'first');
    const reads = new ReadOnce();
    expect(reads.has(file, { confineTo: project.dir })).toBe(false);
    expect(reads.bytes('secret file', 'once.txt', file, at, { confineTo: project.dir }).toString()).toBe('first');
    fs.writeFileSync(file, 'second');
    expect(reads.has(file, { confineTo: project.dir })).toBe(true);
    expect(reads.bytes('secret file', './once.txt', file, at, { confineTo: project.dir }).toString()).toBe('first');
    expect(reads.bytes('secret file', 'once.txt', file, at).toString()).toBe('second');
    expect(new ReadOnce().bytes('secret file', 'once.txt', file, at, { confineTo: project.dir }).toString()).toBe(
      'second',
    );
  });

  test('a refusal is not kept: the next reference is checked again, in its own words', () => {
    const reads = new ReadOnce();
    const dir = path.join(project.dir, 'conf');
    expect(errorOf(() => reads.bytes('secret file', 'conf', dir, at)).message).toContain(
      'secret file "conf" is a directory',
    );
    expect(errorOf(() => reads.bytes('config file', './conf', dir, at)).message).toContain(
      'config file "./conf" is a directory',
    );
    expect(reads.has(dir)).toBe(false);
  });
});

describe('textOf', () => {
  const at = { file: 'compose.yaml', path: '' };

  test('UTF-8 text, with tabs, CR LF and letters beyond ASCII, is returned as it is', () => {
    expect(textOf('compose file', 'compose.yaml', Buffer.from('a:\tb\r\nc: "grüß"\n'), at)).toBe(
      'a:\tb\r\nc: "grüß"\n',
    );
  });

  test('the first byte that is not UTF-8, or a control character, is named with its line and column', () => {
    const error = errorOf(() =>
      textOf('compose file', 'compose.yaml', Buffer.concat([Buffer.from('a: 1\nbé: '), Buffer.from([0xc3, 0x28])]), at),
    );
    expect(error.problem).toBe('compose file "compose.yaml" is not a text file: byte 0xc3 is not UTF-8');
    expect([error.line, error.column]).toEqual([2, 5]);
    expect(errorOf(() => textOf('compose file', 'compose.yaml', Buffer.from('a: 1\u007f\n'), at)).problem).toBe(
      'compose file "compose.yaml" is not a text file: it holds the control character 0x7f',
    );
  });

  test('for a file named by another (an env_file), the place goes into the message and the location stays the key', () => {
    const key = { file: 'compose.yaml', path: 'services.web.env_file', line: 4, column: 15 };
    const error = errorOf(() => textOf('env file', 'app.env', Buffer.from('A=1\nB=\u0000\n'), key));
    expect(error.problem).toBe(
      'env file "app.env" is not a text file: it holds the control character 0x00 (line 2, column 3)',
    );
    expect([error.file, error.path, error.line, error.column]).toEqual([
      'compose.yaml',
      'services.web.env_file',
      4,
      15,
    ]);
  });
});
