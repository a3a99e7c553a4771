import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ToolOutput, YAML_HEADER } from '../../lib/compose/tool-output';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tree(files: Record<string, string>): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tool-output-')));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe('ToolOutput', () => {
  const dir = tree({
    'out/2-app/web-deployment.yaml': `${YAML_HEADER}\nkind: Deployment\n`,
    'conf/generated.yaml': `${YAML_HEADER}\nkind: Secret\n`,
    'conf/own.yaml': 'kind: Mine\n',
    'bundle/.cdk8s-compose-files': 'ledger\n',
    '.cdk8s-compose-123-abc/x': 'staged\n',
  });

  test('the output folder, when it does not hold the project', () => {
    const output = new ToolOutput(dir, path.join(dir, 'out'));
    expect(output.folder(path.join(dir, 'out'))).toBe('the output folder');
    expect(output.file(path.join(dir, 'out/2-app/web-deployment.yaml'))).toBe('in the output folder');
    expect(output.folder(path.join(dir, 'conf'))).toBeUndefined();
  });

  test('an output folder that holds the project (-o .) is not skipped whole: only the marks count', () => {
    const output = new ToolOutput(dir, dir);
    expect(output.folder(path.join(dir, 'conf'))).toBeUndefined();
    expect(output.file(path.join(dir, 'conf/own.yaml'))).toBeUndefined();
    expect(output.file(path.join(dir, 'conf/generated.yaml'))).toBe('a file cdk8s-compose generated');
  });

  test('staging folders, ledgers and their folders, and generated files, with or without the output folder', () => {
    const output = new ToolOutput(dir);
    expect(output.folder(path.join(dir, '.cdk8s-compose-123-abc'))).toBe('a staging folder of cdk8s-compose');
    expect(output.path(path.join(dir, '.cdk8s-compose-123-abc/x'))).toBe('in a staging folder of cdk8s-compose');
    expect(output.folder(path.join(dir, 'bundle'))).toBe('a folder cdk8s-compose wrote (it holds a ledger)');
    expect(output.file(path.join(dir, 'bundle/.cdk8s-compose-files'))).toBe('a staged file or ledger of cdk8s-compose');
    expect(output.path(path.join(dir, 'conf/generated.yaml'))).toBe('a file cdk8s-compose generated');
    expect(output.path(path.join(dir, 'conf/own.yaml'))).toBeUndefined();
    expect(output.path(path.join(dir, 'missing.yaml'))).toBeUndefined();
  });
});
