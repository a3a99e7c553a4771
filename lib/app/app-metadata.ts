import { ApiObject } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeError } from '../compose/errors';
import { Redactor } from '../compose/sensitive';
import { isLabelKey } from '../base/naming';
import { checkLabels } from './app-settings';
import { ComposeAppProps } from './compose-app-props';

/** Label keys the app sets itself: Service selectors, NetworkPolicies and KubeVirt select pods by them. */
const RESERVED_LABELS = ['app', 'name'];
const RESERVED_LABEL_PREFIXES = ['network.cdk8s-compose.io/', 'kubevirt.io/'];

/**
 * The `labels` and `annotations` props of an app, checked when the app starts: label keys and values and
 * annotation keys Kubernetes accepts, no label key the app sets itself. `applyTo` puts them on every API object the
 * app made and on every pod template through the objects' metadata handles; the VM takes them as props of its
 * template (`templateLabels`, `templateAnnotations`).
 */
export class AppMetadata {
  /** Labels for every object and pod. */
  public readonly labels: Readonly<Record<string, string>>;
  /** Annotations for every object and pod. */
  public readonly annotations: Readonly<Record<string, string>>;

  constructor(path: string, props: Pick<ComposeAppProps, 'labels' | 'annotations'>) {
    this.labels = props.labels ?? {};
    this.annotations = props.annotations ?? {};
    checkLabels(`${path}: labels`, this.labels);
    for (const key of Object.keys(this.labels)) {
      if (RESERVED_LABELS.includes(key) || RESERVED_LABEL_PREFIXES.some((p) => key.startsWith(p))) {
        throw new ComposeError(
          `${path}: labels sets "${key}", which the app sets itself (Service selectors and network policies use it)`,
          {
            allowed: `a key other than ${RESERVED_LABELS.join(', ')} and ${RESERVED_LABEL_PREFIXES.map((p) => `${p}…`).join(', ')}`,
            hint: 'use another key',
          },
        );
      }
    }
    for (const key of Object.keys(this.annotations)) {
      if (!isLabelKey(key)) {
        throw new ComposeError(`${path}: annotations has a key Kubernetes does not accept`, {
          value: key,
          allowed:
            'an optional DNS prefix and "/", then 1-63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
        });
      }
    }
  }

  /** True when there is nothing to add. */
  public get isEmpty(): boolean {
    return Object.keys(this.labels).length + Object.keys(this.annotations).length === 0;
  }

  /**
   * Adds the labels and annotations to every API object under `scope` and to the pod template of every workload,
   * refusing a value that quotes a secret the redactor knows (labels and annotations are printed everywhere).
   */
  public applyTo(scope: Construct, redactor: Redactor): void {
    if (this.isEmpty) {
      return;
    }
    for (const [what, values] of [
      ['labels', this.labels],
      ['annotations', this.annotations],
    ] as const) {
      for (const [key, value] of Object.entries(values)) {
        if (redactor.redact(value) !== value) {
          throw new ComposeError(`${scope.node.path}: the value of ${what}["${key}"] contains a secret value`, {
            hint: 'labels and annotations are readable by anyone who can list the objects: keep secrets in Secrets',
          });
        }
      }
    }
    for (const construct of scope.node.findAll()) {
      const targets = [];
      if (construct instanceof ApiObject) {
        targets.push(construct.metadata);
      }
      if (construct instanceof kplus.AbstractPod) {
        targets.push(construct.podMetadata);
      }
      for (const metadata of targets) {
        Object.entries(this.labels).forEach(([key, value]) => metadata.addLabel(key, value));
        Object.entries(this.annotations).forEach(([key, value]) => metadata.addAnnotation(key, value));
      }
    }
  }
}
