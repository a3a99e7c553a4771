import { ApiObject, Lazy } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeSecret } from '../../../imports/k8s';
import { ComposeLocation, EnvVar, Healthcheck } from '../../compose/model';
import { hasEmbeddedPassword, isSensitiveName } from '../../compose/sensitive';
import { joinDnsLabel } from '../../base/naming';
import { secretHandle } from '../../base/secret-handle';
import { sortedRecord } from '../../util/sort';
import { KeyNames, base64 } from '../key-names';
import {
  SecretVariable,
  argvWithSecretVariables,
  healthcheckWithSecretVariables,
  holdsSecret,
} from '../secret-references';
import { escapeExpansion } from './service-pod';
import { ServicePartProps, objectMetadata } from './service-plan';

type Variable = [variable: EnvVar, value: string, key: string];

/**
 * A service's environment (rule 3): plain values in the `<name>-env` ConfigMap, sensitive ones in the `<name>-env`
 * Secret, hosts rewritten to Service names (rule 2). A secret value in the command, entrypoint or healthcheck is read
 * from that Secret through a variable, so the command, args and healthcheck the container runs come from here too.
 */
export class ServiceEnvironment {
  /** The container's variables, by name, sorted. */
  public readonly values: Record<string, kplus.EnvValue>;
  /** The ConfigMap of non-sensitive values. */
  public readonly configMap?: ApiObject;
  /** The Secret of sensitive values (Opaque, `data`). */
  public readonly secret?: KubeSecret;
  /** The handle of `secret`, built once: the env values read the Secret through it. */
  public readonly secretHandle?: kplus.ISecret;
  /** The compose healthcheck, unless disabled, with its secrets read from their variables. */
  public readonly healthcheck?: Healthcheck;
  /** The entrypoint and command, `$(` escaped, secrets read from their variables. */
  public readonly command?: string[];
  public readonly args?: string[];

  private readonly part: ServicePartProps;
  private readonly secretVariables: SecretVariable[];
  /** The variables the command, entrypoint and healthcheck read. */
  private readonly used = new Set<string>();
  private readers?: () => readonly kplus.Container[];

  constructor(scope: Construct, part: ServicePartProps) {
    this.part = part;
    const { service } = part.plan;
    // Secret values in the command, entrypoint or healthcheck are read from the env Secret (rule 3).
    const healthcheckWords = service.healthcheck?.test?.command ?? [];
    const inCommands = part.context.secretValues.valuesIn(
      [...(service.entrypoint ?? []), ...(service.command ?? []), ...healthcheckWords].join('\n'),
    );
    const { plain, sensitive } = this.classify(inCommands);
    const values: Record<string, kplus.EnvValue> = {};
    // An empty value cannot be a ConfigMap key (kplus drops it, and the pod would then fail on the missing key):
    // it is a plain empty value.
    for (const [variable, value] of plain.filter(([, v]) => v === '')) {
      values[variable.name] = kplus.EnvValue.fromValue(value);
    }
    const nonEmpty = plain.filter(([, value]) => value !== '');
    const owner = { owner: `the environment of service "${service.name}"`, at: service.at };
    if (nonEmpty.length > 0) {
      const name = part.context.names.claim('ConfigMap', joinDnsLabel(part.plan.name, 'env'), owner);
      const data = Object.fromEntries(nonEmpty.map(([, value, key]) => [key, value]));
      this.configMap = new ApiObject(scope, 'EnvConfigMap', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: objectMetadata(part, name),
        // The keys the pod still reads when it is rendered, as for the Secret below. `immutable: false` is what
        // kplus's ConfigMap wrote before, kept so the output does not change.
        data: Lazy.any({ produce: () => this.keysRead(data, 'configMapKeyRef', this.configMap?.name) }),
        immutable: false,
      });
      const handle = kplus.ConfigMap.fromConfigMapName(scope, 'EnvConfigMapRef', name);
      for (const [variable, , key] of nonEmpty) {
        values[variable.name] = kplus.EnvValue.fromConfigMap(handle, key);
      }
    }
    const { secret, handle } = this.addSecretValues(scope, sensitive, owner, values);
    this.secret = secret;
    this.secretHandle = handle;
    this.values = sortedRecord(values);
    this.secretVariables = sensitive
      .map(([variable, value]) => ({ value, variable: variable.name }))
      .filter((s) => inCommands.includes(s.value));
    this.healthcheck =
      service.healthcheck && !service.healthcheck.disabled
        ? (healthcheckWithSecretVariables(service.healthcheck, this.secretVariables, this.used) ?? service.healthcheck)
        : undefined;
    this.command = service.entrypoint
      ? argvWithSecretVariables(escapeExpansion(service.entrypoint), this.secretVariables, this.used)
      : undefined;
    this.args = service.command
      ? argvWithSecretVariables(escapeExpansion(service.command), this.secretVariables, this.used)
      : undefined;
  }

  /**
   * The sensitive variables as references into the env Secret: the user's `existingSecret`, or the `<name>-env`
   * Secret made here with the keys the pod still reads.
   */
  private addSecretValues(
    scope: Construct,
    sensitive: readonly Variable[],
    owner: { owner: string; at: ComposeLocation },
    values: Record<string, kplus.EnvValue>,
  ): { secret?: KubeSecret; handle?: kplus.ISecret } {
    if (sensitive.length === 0) {
      return {};
    }
    const existing = this.part.settings.existingSecret;
    let secret: KubeSecret | undefined;
    let handle: kplus.ISecret;
    if (existing !== undefined) {
      handle = kplus.Secret.fromSecretName(scope, 'EnvSecretRef', existing);
    } else {
      const name = this.part.context.names.claim('Secret', joinDnsLabel(this.part.plan.name, 'env'), owner);
      const data = Object.fromEntries(sensitive.map(([, value, key]) => [key, base64(value)]));
      secret = new KubeSecret(scope, 'EnvSecret', {
        metadata: objectMetadata(this.part, name),
        type: 'Opaque',
        // The keys the pod still reads when it is rendered: a variable the user replaced on the container
        // (`container.env.addVariable('DATABASE_URL', …)`) takes its old value out of the Secret with it.
        data: Lazy.any({ produce: () => this.keysRead(data, 'secretKeyRef', secret?.name) }),
      });
      handle = secretHandle(scope, 'EnvSecretRef', secret);
    }
    for (const [variable, , key] of sensitive) {
      values[variable.name] = kplus.EnvValue.fromSecretValue({ secret: handle, key });
    }
    return { secret, handle };
  }

  /**
   * The containers that read the env Secret and ConfigMap (the pod's, once it exists): each keeps the keys they read
   * when it is rendered. Until this is called they keep every key.
   */
  public readSecretFrom(containers: () => readonly kplus.Container[]): void {
    this.readers = containers;
  }

  /** Reports where the command, entrypoint or healthcheck read a secret from the Secret. */
  public reportSecretReferences(): void {
    const { service } = this.part.plan;
    if (this.used.size === 0) {
      return;
    }
    const healthcheckChanged = this.healthcheck !== service.healthcheck;
    const where = [
      holdsSecret((service.entrypoint ?? []).join(' '), this.secretVariables) && 'entrypoint',
      holdsSecret((service.command ?? []).join(' '), this.secretVariables) && 'command',
      healthcheckChanged && 'healthcheck',
    ].filter((w) => w);
    this.part.context.warn(
      'secret-reference',
      `a secret value in the ${where.join(' and ')} is read from the Secret "${this.secretHandle?.name}" through ${[
        ...this.used,
      ]
        .sort()
        .map((v) => `$(${v})`)
        .join(', ')}` + `${healthcheckChanged ? ' (the probe runs through sh -c to read it)' : ''}`,
      service.at,
    );
  }

  /** The data of the env Secret or ConfigMap `name`, less the keys no container of the pod reads any more. */
  private keysRead(
    data: Readonly<Record<string, string>>,
    reference: 'secretKeyRef' | 'configMapKeyRef',
    name: string | undefined,
  ): Record<string, string> {
    if (!this.readers || name === undefined) {
      return { ...data };
    }
    const read = new Set<string>();
    for (const container of this.readers()) {
      for (const value of Object.values(container.env.variables)) {
        const ref = value.valueFrom?.[reference];
        if (ref?.name === name && typeof ref.key === 'string') {
          read.add(ref.key);
        }
      }
    }
    return Object.fromEntries(Object.entries(data).filter(([key]) => read.has(key)));
  }

  /**
   * Each variable, plain or sensitive, with its value (hosts rewritten) and its key; a secret of the app in a command
   * that no variable of the service holds as it is gets a variable of its own.
   */
  private classify(secretsInCommands: readonly string[]): { plain: Variable[]; sensitive: Variable[] } {
    const { plan, settings, context } = this.part;
    const plain: Variable[] = [];
    const sensitive: Variable[] = [];
    const keys = new KeyNames();
    for (const variable of plan.service.environment) {
      const rewritten = context.hosts.rewrite(variable.value);
      for (const rewrite of rewritten.rewrites) {
        context.warn(
          'host-rewrite',
          `host "${rewrite.from}" in ${variable.name} rewritten to the Service name "${rewrite.to}"`,
          variable.at,
        );
      }
      const isSensitive =
        isSensitiveName(variable.name, settings.sensitiveNamePatterns) ||
        settings.sensitiveEnv.includes(variable.name) ||
        hasEmbeddedPassword(variable.value) ||
        context.secretValues.foundIn(variable.value);
      (isSensitive ? sensitive : plain).push([variable, rewritten.value, keys.key(variable.name)]);
    }
    secretsInCommands
      .filter((value) => !sensitive.some(([, v]) => v === value))
      .forEach((value, i) => {
        const name = `CDK8S_COMPOSE_SECRET_${i + 1}`;
        sensitive.push([{ name, value, origin: 'environment', at: plan.service.at }, value, keys.key(name)]);
      });
    return { plain, sensitive };
  }
}
