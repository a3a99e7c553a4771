import { codeBlock } from '../../util/shell-words';
import { WaveWait } from '../../app/deploy-waves';

/** How long the runbook's and the deploy's waits may take. */
export const DEFAULT_WAIT_SECONDS = 300;

/** The numbered sections of a runbook: a title's numbered heading, and the link to it. */
export interface RunbookSections {
  section(title: string): string;
  anchor(title: string): string;
}

/** The lines of a Markdown document, with the few shapes the runbook uses. */
export class Markdown {
  public readonly lines: string[] = [];

  public line(...lines: string[]): void {
    this.lines.push(...lines);
  }

  public heading(level: number, title: string): void {
    this.lines.push(`${'#'.repeat(level)} ${title}`, '');
  }

  /** A paragraph: the parts joined by spaces, then a blank line. */
  public para(...text: string[]): void {
    this.lines.push(text.join(' '), '');
  }

  /** A `sh` code block, indented under a list item with `indent`; no text in the commands can close it. */
  public sh(commands: readonly string[], indent = ''): void {
    this.lines.push(...codeBlock('sh', commands, indent), '');
  }

  public toString(): string {
    return this.lines.join('\n').replace(/\n+$/, '\n');
  }
}

/** The kubectl commands that wait for one dependency. */
export function waitCommand(wait: WaveWait, namespace: string, timeoutSeconds: number): string[] {
  const timeout = `--timeout=${timeoutSeconds}s`;
  switch (wait.condition) {
    case 'complete':
      return ['kubectl', 'wait', '--for=condition=complete', `job/${wait.name}`, '-n', namespace, timeout];
    case 'vm-ready':
      return ['kubectl', 'wait', '--for=condition=Ready', `vm/${wait.name}`, '-n', namespace, timeout];
    default:
      return ['kubectl', 'wait', '--for=condition=ready', 'pod', '-l', `app=${wait.name}`, '-n', namespace, timeout];
  }
}

/** The pod spec of a workload manifest, or undefined for other kinds. */
export function podSpec(manifest: any): any {
  switch (manifest?.kind) {
    case 'CronJob':
      return manifest.spec?.jobTemplate?.spec?.template?.spec;
    case 'Deployment':
    case 'StatefulSet':
    case 'Job':
    case 'DaemonSet':
      return manifest.spec?.template?.spec;
    default:
      return undefined;
  }
}
