import { ComposeError } from '../compose/errors';
import { ComposeService } from '../compose/model';
import { Redactor } from '../compose/sensitive';

/**
 * The compose fields that end up as plain text in the manifests and the runbook and that cannot read from a Secret:
 * the Ingress host (`kompose.service.expose`, `x-cdk8s-compose.ingressHost` or the `ingressHost` prop), the working
 * folder, the host aliases (`extra_hosts`) and an init container's command (`kompose.init.containers.command`). A
 * secret there is refused, naming the key path and never the value: moving it would change what the app does.
 */
export function checkPlainFields(service: ComposeService, ingressHost: string | undefined, redactor: Redactor): void {
  const fields: [string, string | undefined][] = [
    ['labels.kompose.service.expose', service.labels['kompose.service.expose']],
    ['the Ingress host (ingressHost)', ingressHost],
    ['working_dir', service.workingDir],
    ...service.extraHosts.map((h, i): [string, string] => [`extra_hosts[${i}]`, `${h.hostname}:${h.ip}`]),
    ['labels.kompose.init.containers.command', service.labels['kompose.init.containers.command']],
  ];
  for (const [field, text] of fields) {
    if (text !== undefined && redactor.hides(text)) {
      throw new ComposeError(
        `${field} holds a secret value, which would be written in plain text into the manifests and ` +
          'the runbook (this field cannot read from a Secret)',
        {
          at: {
            file: service.at.file,
            path: field.startsWith('the ') ? service.at.path : `${service.at.path}.${field}`,
          },
          hint:
            'use a value there that is not secret (an Ingress host: --ingress-host SERVICE=HOST or the ingressHost ' +
            'prop), or rename the variable if it is not a secret',
        },
      );
    }
  }
}
