import { Healthcheck } from '../compose/model';

/**
 * Rule 3 beyond env: a secret value written in a command, an entrypoint or a healthcheck stays in the Secret, and
 * the container reads it from an env variable that takes it from the Secret. Kubernetes expands `$(VAR)` in command
 * and args; an exec probe expands nothing, so a probe that needs a secret runs through `sh -c` and reads `$VAR`.
 */

/** A secret value and the env variable (from a secretKeyRef) that holds it in the container. */
export interface SecretVariable {
  readonly value: string;
  readonly variable: string;
}

/** Splits a text into literal parts and secret parts, longest secret first. */
function split(text: string, secrets: readonly SecretVariable[]): Array<string | SecretVariable> {
  let parts: Array<string | SecretVariable> = [text];
  for (const secret of [...secrets].sort(
    (a, b) => b.value.length - a.value.length || (a.variable < b.variable ? -1 : 1),
  )) {
    parts = parts.flatMap((part) => {
      if (typeof part !== 'string' || !part.includes(secret.value)) {
        return [part];
      }
      const pieces = part.split(secret.value);
      return pieces.flatMap((piece, i) => (i === 0 ? [piece] : [secret, piece])).filter((p) => p !== '');
    });
  }
  return parts;
}

/** True when a secret value occurs in the text. */
export function holdsSecret(text: string, secrets: readonly SecretVariable[]): boolean {
  return secrets.some((s) => text.includes(s.value));
}

/** Command or args with each secret value replaced by `$(VAR)`; the variables used are added to `used`. */
export function argvWithSecretVariables(
  argv: readonly string[],
  secrets: readonly SecretVariable[],
  used: Set<string>,
): string[] {
  return argv.map((arg) =>
    split(arg, secrets)
      .map((part) => {
        if (typeof part === 'string') {
          return part;
        }
        used.add(part.variable);
        return `$(${part.variable})`;
      })
      .join(''),
  );
}

/**
 * A healthcheck whose test holds a secret, as a shell script that reads the secret from its variable: an exec test's
 * words are single-quoted with `"${VAR}"` in place of the secret; in a shell test the secret is replaced according to
 * the quotes around it. Undefined when the test holds no secret.
 */
export function healthcheckWithSecretVariables(
  healthcheck: Healthcheck,
  secrets: readonly SecretVariable[],
  used: Set<string>,
): Healthcheck | undefined {
  const test = healthcheck.test;
  if (!test || !test.command.some((word) => holdsSecret(word, secrets))) {
    return undefined;
  }
  const script =
    test.kind === 'exec'
      ? test.command
          .map(
            (word) =>
              split(word, secrets)
                .map((part) => {
                  if (typeof part === 'string') {
                    return `'${part.replace(/'/g, "'\\''")}'`;
                  }
                  used.add(part.variable);
                  return `"\${${part.variable}}"`;
                })
                .join('') || "''",
          )
          .join(' ')
      : shellWithSecretVariables(test.command.join(' '), secrets, used);
  return { ...healthcheck, test: { kind: 'shell', command: [script] } };
}

/** A shell script with each secret replaced by its variable, quoted for where it stands. */
function shellWithSecretVariables(script: string, secrets: readonly SecretVariable[], used: Set<string>): string {
  let out = '';
  let quote: '' | "'" | '"' = '';
  for (const part of split(script, secrets)) {
    if (typeof part !== 'string') {
      used.add(part.variable);
      out +=
        quote === "'" ? `'"\${${part.variable}}"'` : quote === '"' ? `\${${part.variable}}` : `"\${${part.variable}}"`;
      continue;
    }
    for (let i = 0; i < part.length; i++) {
      const c = part[i];
      if (c === '\\' && quote !== "'") {
        i++;
      } else if (c === "'" && quote !== '"') {
        quote = quote === "'" ? '' : "'";
      } else if (c === '"' && quote !== "'") {
        quote = quote === '"' ? '' : '"';
      }
    }
    out += part;
  }
  return out;
}
