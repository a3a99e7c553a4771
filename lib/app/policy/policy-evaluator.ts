import { compare } from '../../util/sort';

/**
 * Whether a set of NetworkPolicy manifests admits traffic from one pod to another on a port, as the API server's
 * NetworkPolicy semantics say: a pod selected by no policy of a direction is open in that direction; the rules of
 * the policies that select it are ORed; a rule without peers or ports admits every peer or port. Peers are pods of
 * the same namespace (`podSelector` without `namespaceSelector`); `ipBlock` and other namespaces are not pods of it.
 */

type Labels = Readonly<Record<string, string>>;

/** A pod, by a name of the caller's choice (answers are kept per name), and its labels. */
export interface EvaluatedPod {
  readonly name: string;
  readonly labels: Labels;
}

/** Answers admission questions over one namespace's NetworkPolicies; answers are kept, as pairs are many. */
export class PolicyEvaluator {
  private readonly policiesOf = new Map<string, { ingress: any[]; egress: any[] }>();
  /** Answers by peer signature, then the pod whose policies decide, then port. */
  private readonly ingressMemo = new Map<number, Map<string, Map<number, boolean>>>();
  private readonly egressMemo = new Map<number, Map<string, Map<number, boolean>>>();
  private readonly signatures = new Map<string, number>();
  private readonly signatureIds = new Map<string, number>();
  private readonly peersUseApp: boolean;
  /** Policies that select by `app`, by that value; the others are matched against every pod. */
  private readonly byApp = new Map<string, any[]>();
  private readonly others: any[] = [];

  constructor(policies: readonly any[]) {
    for (const policy of policies) {
      const app = policy.spec?.podSelector?.matchLabels?.app;
      if (typeof app === 'string') {
        this.byApp.set(app, [...(this.byApp.get(app) ?? []), policy]);
      } else {
        this.others.push(policy);
      }
    }
    const peers = policies.flatMap((p) => [
      ...(p.spec?.ingress ?? []).flatMap((r: any) => r.from ?? []),
      ...(p.spec?.egress ?? []).flatMap((r: any) => r.to ?? []),
    ]);
    this.peersUseApp = peers.some(
      (peer: any) =>
        peer.podSelector?.matchLabels?.app !== undefined || peer.podSelector?.matchExpressions !== undefined,
    );
  }

  /** True when the policies admit `from` → `to` on a TCP container port, or why not. */
  public admits(from: EvaluatedPod, to: EvaluatedPod, port: number): true | string {
    if (!this.ingressAdmits(from, to, port)) {
      return `no NetworkPolicy admits "${from.name}" into "${to.name}" on port ${port}`;
    }
    return this.egressAdmits(from, to, port)
      ? true
      : `no NetworkPolicy lets "${from.name}" out to "${to.name}" on port ${port}`;
  }

  /** True when the policies that select `to` (if any) let `from` in on `port`: one half of {@link admits}. */
  public ingressAdmits(from: EvaluatedPod, to: EvaluatedPod, port: number): boolean {
    // Pods with the same labels (but their own app label, which no peer selector uses) are admitted alike.
    return memo(this.ingressMemo, this.signature(from), to.name, port, () => {
      const selecting = this.selecting(to).ingress;
      return (
        selecting.length === 0 ||
        selecting.some((p) => (p.spec.ingress ?? []).some((rule: any) => ruleAdmits(rule, 'from', from.labels, port)))
      );
    });
  }

  /** True when the policies that select `from` (if any) let it out to `to` on `port`: the other half of {@link admits}. */
  public egressAdmits(from: EvaluatedPod, to: EvaluatedPod, port: number): boolean {
    return memo(this.egressMemo, this.signature(to), from.name, port, () => {
      const selecting = this.selecting(from).egress;
      return (
        selecting.length === 0 ||
        selecting.some((p) => (p.spec.egress ?? []).some((rule: any) => ruleAdmits(rule, 'to', to.labels, port)))
      );
    });
  }

  /**
   * What a peer selector can see of a pod, as a number: pods with the same one are admitted alike, as peers, by every
   * policy (its labels, less `app` unless some peer selector uses it). Kept per pod name.
   */
  public signature(pod: EvaluatedPod): number {
    let found = this.signatures.get(pod.name);
    if (found === undefined) {
      const labels = Object.entries(pod.labels)
        .filter(([key]) => this.peersUseApp || key !== 'app')
        .sort(([a], [b]) => compare(a, b));
      const text = JSON.stringify(labels);
      found = this.signatureIds.get(text) ?? this.signatureIds.size;
      this.signatureIds.set(text, found);
      this.signatures.set(pod.name, found);
    }
    return found;
  }

  /** The policies that select a pod, by direction. */
  private selecting(pod: EvaluatedPod): { ingress: any[]; egress: any[] } {
    let found = this.policiesOf.get(pod.name);
    if (!found) {
      const candidates = [
        ...(pod.labels.app !== undefined ? (this.byApp.get(pod.labels.app) ?? []) : []),
        ...this.others,
      ];
      const selecting = candidates.filter((p) => matches(p.spec?.podSelector?.matchLabels ?? {}, pod.labels));
      found = {
        ingress: selecting.filter((p) => (p.spec.policyTypes ?? ['Ingress']).includes('Ingress')),
        egress: selecting.filter((p) => (p.spec.policyTypes ?? []).includes('Egress')),
      };
      this.policiesOf.set(pod.name, found);
    }
    return found;
  }
}

/** True when every label of the selector is on the pod. */
export function matches(selector: Labels, labels: Labels): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

function memo(
  cache: Map<number, Map<string, Map<number, boolean>>>,
  signature: number,
  service: string,
  port: number,
  compute: () => boolean,
): boolean {
  let bySignature = cache.get(signature);
  if (!bySignature) {
    bySignature = new Map();
    cache.set(signature, bySignature);
  }
  let byService = bySignature.get(service);
  if (!byService) {
    byService = new Map();
    bySignature.set(service, byService);
  }
  let answer = byService.get(port);
  if (answer === undefined) {
    answer = compute();
    byService.set(port, answer);
  }
  return answer;
}

function ruleAdmits(rule: any, key: 'from' | 'to', peer: Labels, port: number): boolean {
  const peers: any[] | undefined = rule[key];
  const peerOk =
    peers === undefined ||
    peers.length === 0 ||
    peers.some(
      (p) =>
        p.podSelector !== undefined &&
        p.namespaceSelector === undefined &&
        p.ipBlock === undefined &&
        matches(p.podSelector.matchLabels ?? {}, peer),
    );
  const ports: any[] | undefined = rule.ports;
  const portOk =
    ports === undefined ||
    ports.length === 0 ||
    ports.some(
      (p) =>
        (p.protocol ?? 'TCP') === 'TCP' &&
        (p.port === undefined || p.port === port || (p.endPort !== undefined && port >= p.port && port <= p.endPort)),
    );
  return peerOk && portOk;
}
