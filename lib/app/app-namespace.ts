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
  /** Accept a namespace the cluster or a platform component uses itself. @default false */
  readonly allowSystemNamespace?: boolean;
  /** The ingress controller's namespace: the platform's too. @default 'ingress-nginx' */
  readonly ingressControllerNamespace?: string;
}

/**
 * Namespaces of platform components an app must not move into, by the component that installs itself there by
 * default: the app's default-deny NetworkPolicy and ResourceQuota would bind the component, and the runbook's
 * tear-down would delete it.
 */
export const PLATFORM_NAMESPACES: Readonly<Record<string, string>> = {
  'argocd': 'Argo CD',
  'calico-system': 'Calico',
  'cattle-monitoring-system': "Rancher's monitoring",
  'cattle-system': 'Rancher',
  'cdi': "KubeVirt's Containerized Data Importer",
  'cert-manager': 'cert-manager',
  'external-secrets': 'the External Secrets Operator',
  'flux-system': 'Flux',
  'gatekeeper-system': 'OPA Gatekeeper',
  'ingress-nginx': 'the ingress-nginx controller',
  'istio-system': 'Istio',
  'kubevirt': 'KubeVirt',
  'kyverno': 'Kyverno',
  'linkerd': 'Linkerd',
  'local-path-storage': 'the local-path provisioner',
  'longhorn-system': 'Longhorn',
  'metallb-system': 'MetalLB',
  'monitoring': 'kube-prometheus (Prometheus, Alertmanager, Grafana)',
  'olm': 'the Operator Lifecycle Manager',
  'operators': 'the Operator Lifecycle Manager',
  'prometheus-operator': 'the Prometheus Operator',
  'rook-ceph': 'Rook',
  'tigera-operator': 'Calico',
  'velero': 'Velero',
};

/**
 * The platform component that owns a namespace, in words; undefined when the app may have it. Besides
 * {@link PLATFORM_NAMESPACES}: the ingress controller's namespace of this app, and the `kube-` and `openshift-`
 * prefixes that Kubernetes and OpenShift reserve for themselves.
 */
export function platformNamespaceOwner(namespace: string, ingressControllerNamespace?: string): string | undefined {
  if (namespace === (ingressControllerNamespace ?? 'ingress-nginx')) {
    return "the ingress controller's namespace (ingressControllerNamespace)";
  }
  if (namespace.startsWith('kube-') || namespace.startsWith('openshift-')) {
    return `a prefix ${namespace.startsWith('kube-') ? 'Kubernetes' : 'OpenShift'} reserves for itself`;
  }
  const owner = PLATFORM_NAMESPACES[namespace];
  return owner === undefined ? undefined : `the namespace of ${owner}`;
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
  const owner = platformNamespaceOwner(namespace, options.ingressControllerNamespace);
  if (owner !== undefined && !options.allowSystemNamespace) {
    throw new ComposeError(`${path}: the namespace "${namespace}" belongs to the platform: ${owner}`, {
      allowed: "a namespace of the app's own, not one a platform component installs itself in",
      hint:
        'choose another namespace (CLI: --namespace NAME, or a different project name), or allow it with ' +
        'allowSystemNamespace: true (CLI: --allow-system-namespace): its default-deny NetworkPolicy and quota then ' +
        'bind that component, and the runbook never deletes the namespace',
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
