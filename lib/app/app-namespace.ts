import { ApiObject, Chart, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeError } from '../compose/errors';
import { ComposeModel } from '../compose/model';
import { isDnsLabel, toDnsLabel } from '../base/naming';
import { SYSTEM_NAMESPACES } from './compose-app-props';

/** What decides an app's namespace. */
export interface AppNamespaceOptions {
  /** The namespace prop. @default - the project name as a DNS-1123 label */
  readonly namespace?: string;
  /** Accept a namespace the cluster uses itself. @default false */
  readonly allowSystemNamespace?: boolean;
}

/**
 * The namespace of an app (the prop, else the project name as a DNS-1123 label), checked: a DNS-1123 label, and not
 * one of the cluster's own unless allowed. `path` is the app's construct path, for messages.
 */
export function resolveNamespace(path: string, model: ComposeModel, options: AppNamespaceOptions): string {
  const namespace = options.namespace ?? toDnsLabel(model.name);
  if (!isDnsLabel(namespace)) {
    throw new ComposeError(`${path}: invalid namespace`, {
      value: namespace,
      allowed: 'a DNS-1123 label: lower case letters, digits and "-", 1-63 characters',
      hint: 'set the namespace prop',
    });
  }
  if (SYSTEM_NAMESPACES.includes(namespace) && !options.allowSystemNamespace) {
    throw new ComposeError(`${path}: the namespace "${namespace}" belongs to the cluster`, {
      allowed: `a namespace of the app's own, not ${SYSTEM_NAMESPACES.join(', ')}`,
      hint:
        'choose another namespace (CLI: --namespace NAME, or a different project name), or allow it with ' +
        'allowSystemNamespace: true (CLI: --allow-system-namespace): its default-deny NetworkPolicy and quota then ' +
        "bind the cluster's own workloads",
    });
  }
  return namespace;
}

/** The Namespace object `Namespace` under `scope`, labelled `name: <namespace>`. */
export function createNamespace(scope: Construct, namespace: string): kplus.Namespace {
  const object = new kplus.Namespace(scope, 'Namespace', {
    metadata: { name: namespace, labels: { name: namespace } },
  });
  if (Chart.of(scope).namespace !== undefined) {
    // A Namespace is cluster-scoped; the chart's namespace must not reach it.
    ApiObject.of(object).addJsonPatch(JsonPatch.remove('/metadata/namespace'));
  }
  return object;
}
