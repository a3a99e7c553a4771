import { Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { portName } from '../base/naming';
import { pullPolicyFor } from '../base/pod-defaults';
import { CredentialsSecret } from './credentials-secret';
import { DatabaseEngine, EngineKind } from './engine';
import { sortedRecord } from '../util/sort';

/**
 * Props of the engine's container: the resolved engine, image, name, port, data claim and credentials, and the
 * container settings of `StatefulDependencyProps` (documented there), which the dependency passes through as given.
 */
export interface EngineContainerProps {
  readonly engine: DatabaseEngine;
  readonly image: string;
  /** The container's name: the dependency's name. */
  readonly name: string;
  readonly port: number;
  /** The claim of the data; none: an emptyDir, which lives as long as the pod. */
  readonly dataClaim?: kplus.IPersistentVolumeClaim;
  /** Where the data claim is mounted, a folder above the engine's data path (see `StatefulDependencyProps`). */
  readonly dataMountPath?: string;
  readonly credentials: CredentialsSecret;
  readonly env?: Readonly<Record<string, kplus.EnvValue>>;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly resources?: kplus.ContainerResources;
  readonly securityContext?: kplus.ContainerSecurityContextProps;
  readonly readiness?: kplus.Probe | false;
  readonly liveness?: kplus.Probe;
  readonly startup?: kplus.Probe;
  readonly imagePullPolicy?: kplus.ImagePullPolicy;
}

/**
 * The engine's container: its credentials and data variables, the readiness check, the port, the resources and
 * security context the official images need, and the data claim mounted at the engine's data path (a `DataVolume`
 * in `scope`).
 */
export function engineContainerProps(scope: Construct, props: EngineContainerProps): kplus.ContainerProps {
  const { engine, port } = props;
  const env = engineEnvironment(props);
  return {
    name: props.name,
    image: props.image,
    imagePullPolicy: props.imagePullPolicy ?? pullPolicyFor(props.image),
    command: props.command ? [...props.command] : undefined,
    args: props.args ? [...props.args] : defaultArgs(engine, env),
    ports: [{ number: port, name: portName('tcp', port) }],
    envVariables: sortedRecord(env),
    resources: props.resources ?? {
      cpu: { request: kplus.Cpu.millis(250), limit: kplus.Cpu.units(1) },
      memory: { request: Size.mebibytes(256), limit: Size.gibibytes(1) },
    },
    securityContext: props.securityContext ?? {
      ensureNonRoot: false,
      readOnlyRootFilesystem: false,
      allowPrivilegeEscalation: false,
      privileged: false,
    },
    readiness: readinessProbe(props),
    liveness: props.liveness,
    startup: props.startup,
    volumeMounts: [
      {
        path: props.dataMountPath ?? engine.dataPath,
        // Above the data path, the data directory is a folder of the claim: lost+found is not in it.
        subPath: props.dataMountPath === undefined ? engine.dataSubPath : undefined,
        volume: props.dataClaim
          ? kplus.Volume.fromPersistentVolumeClaim(scope, 'DataVolume', props.dataClaim, { name: 'data' })
          : kplus.Volume.fromEmptyDir(scope, 'DataVolume', 'data'),
      },
    ],
  };
}

/**
 * The engine's credential variables (the password from the Secret) and data variables, then `env`. Variables the
 * caller sets (a compose file's own POSTGRES_PASSWORD, or its *_FILE form) win over the Secret.
 */
function engineEnvironment(props: EngineContainerProps): Record<string, kplus.EnvValue> {
  const { engine, credentials } = props;
  const given = props.env ?? {};
  const givenKeys = new Set(
    engine.credentialVariables
      .filter((variable) => variable.name in given || `${variable.name}_FILE` in given)
      .map((variable) => variable.key),
  );
  const env: Record<string, kplus.EnvValue> = {};
  for (const setting of engine.credentialEnvironment(credentials.given)) {
    if (setting.name in given || (setting.key && givenKeys.has(setting.key))) {
      continue;
    }
    env[setting.name] =
      setting.key === 'password' && credentials.secret
        ? kplus.EnvValue.fromSecretValue({ secret: credentials.secret, key: 'password' })
        : kplus.EnvValue.fromValue(setting.key ? credentials.resolved[setting.key]! : (setting.value ?? ''));
  }
  for (const [variable, value] of Object.entries(engine.dataEnv)) {
    if (!(variable in given) && props.dataMountPath === undefined) {
      env[variable] = kplus.EnvValue.fromValue(value);
    }
  }
  return Object.assign(env, given);
}

/** `readiness`, or the engine's own check every 10 s, or a TCP check of the port for an engine without one. */
function readinessProbe(props: EngineContainerProps): kplus.Probe | undefined {
  if (props.readiness === false) {
    return undefined;
  }
  const command = props.engine.readinessCommand(props.port);
  return (
    props.readiness ??
    (command
      ? kplus.Probe.fromCommand(command, {
          periodSeconds: Duration.seconds(10),
          timeoutSeconds: Duration.seconds(5),
          failureThreshold: 6,
        })
      : kplus.Probe.fromTcpSocket({ port: props.port, periodSeconds: Duration.seconds(10) }))
  );
}

/** redis takes its password as an argument, not a variable: pass the one StatefulDependency set. */
function defaultArgs(engine: DatabaseEngine, env: Record<string, kplus.EnvValue>): string[] | undefined {
  if (engine.kind === EngineKind.REDIS && 'REDIS_PASSWORD' in env) {
    return ['redis-server', '--requirepass', '$(REDIS_PASSWORD)'];
  }
  return undefined;
}
