import { ApiObject } from 'cdk8s';
import { IConstruct } from 'constructs';
import { Redactor } from './sensitive';

/**
 * Fields that are plain text in every manifest and in the runbook, and that a secret must never reach: Ingress hosts,
 * a container's working folder, the pod's host aliases and the init containers' commands. A secret there (a host
 * read from a variable named like a password, `kompose.init.containers.command` quoting one) is refused, not moved:
 * none of these fields can read from a Secret.
 */
const PLAIN_FIELDS: readonly { readonly what: string; readonly matches: (kind: string, path: readonly string[]) => boolean }[] = [
  { what: 'an Ingress host', matches: (kind, p) => kind === 'Ingress' && (p.includes('host') || p.includes('hosts')) },
  { what: 'a working folder', matches: (_kind, p) => p[p.length - 1] === 'workingDir' },
  { what: 'a host alias (extra_hosts)', matches: (_kind, p) => p.includes('hostAliases') },
  {
    what: 'an init container\'s command',
    matches: (_kind, p) => p.includes('initContainers') && (p.includes('command') || p.includes('args')),
  },
];

/** The kinds that hold these fields: the Ingress, and the workloads with their pod templates. */
const KINDS = new Set(['Ingress', 'Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'Pod', 'VirtualMachine']);

/** The validation messages for every secret value the redactor knows that sits in one of the plain fields. */
export function secretsInPlainFields(scope: IConstruct, redactor: Redactor): string[] {
  const problems: string[] = [];
  if (redactor.hiddenValues().length === 0) {
    return problems;
  }
  const objects = scope.node.findAll().filter((c): c is ApiObject => c instanceof ApiObject && KINDS.has(c.kind))
    .sort((a, b) => (a.node.path < b.node.path ? -1 : a.node.path > b.node.path ? 1 : 0));
  for (const object of objects) {
    visit(object.toJson(), [], (path, text) => {
      const field = PLAIN_FIELDS.find((f) => f.matches(object.kind, path));
      if (field && redactor.hides(text)) {
        problems.push(`${object.kind} "${object.name}": ${field.what} (${path.join('.')}) holds a secret value, which would be `
          + 'written in plain text into the manifest and the runbook. Fix: use a value that is not secret there (an Ingress '
          + 'host: --ingress-host SERVICE=HOST or the ingressHost prop), or rename the variable if it is not a secret');
      }
    });
  }
  return problems;
}

function visit(value: unknown, path: string[], onText: (path: readonly string[], text: string) => void): void {
  if (typeof value === 'string') {
    onText(path, value);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => visit(item, [...path, String(i)], onText));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      visit(item, [...path, key], onText);
    }
  }
}
