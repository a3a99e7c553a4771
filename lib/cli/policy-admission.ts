/**
 * What the generated NetworkPolicies admit between two pods of the namespace, read from the manifests themselves, so
 * that the runbook's test pods carry labels the policies really let through. Only what the project generates is
 * understood: `podSelector.matchLabels` (same namespace), ports by number (and `endPort`), rules without `to`/`from`
 * or without `ports`. An `ipBlock` or `namespaceSelector` peer is taken to admit no pod of the namespace: pod
 * addresses are unknown here, so the answer errs on "not admitted".
 */

/** A pod as the policies see it: its labels. */
export type PodLabels = Readonly<Record<string, string>>;

/** One TCP/UDP port of a destination pod (the container port: a Service's `targetPort`). */
export interface PodPort {
  readonly port: number;
  readonly protocol: string;
}

function selects(selector: any, labels: PodLabels): boolean {
  if (!selector) {
    return false;
  }
  const match: Record<string, string> = selector.matchLabels ?? {};
  return (
    Object.entries(match).every(([key, value]) => labels[key] === value) &&
    (selector.matchExpressions ?? []).length === 0
  );
}

function portAllowed(ports: readonly any[] | undefined, port: PodPort): boolean {
  if (!ports || ports.length === 0) {
    return true;
  }
  return ports.some(
    (p) =>
      (p.protocol ?? 'TCP') === port.protocol &&
      (p.port === undefined ||
        (typeof p.port === 'number' && port.port >= p.port && port.port <= (p.endPort ?? p.port))),
  );
}

function peerAdmits(peers: readonly any[] | undefined, labels: PodLabels): boolean {
  if (!peers || peers.length === 0) {
    return true;
  }
  return peers.some(
    (peer) =>
      peer.podSelector !== undefined &&
      peer.namespaceSelector === undefined &&
      peer.ipBlock === undefined &&
      selects(peer.podSelector, labels),
  );
}

/**
 * True when the policies let a pod with labels `from` open a connection to a pod with labels `to` on `port`:
 * the source's egress (when a policy with `Egress` selects it) and the destination's ingress (the same for
 * `Ingress`) both allow it. `only` checks one side.
 */
export function admits(
  policies: readonly any[],
  from: PodLabels,
  to: PodLabels,
  port: PodPort,
  only?: 'Ingress' | 'Egress',
): boolean {
  const direction = (type: 'Ingress' | 'Egress', pod: PodLabels, peer: PodLabels): boolean => {
    const selecting = policies.filter(
      (p) => selects(p.spec?.podSelector, pod) && (p.spec?.policyTypes ?? ['Ingress']).includes(type),
    );
    if (selecting.length === 0) {
      return true;
    }
    return selecting.some((p) =>
      ((type === 'Ingress' ? p.spec?.ingress : p.spec?.egress) ?? []).some(
        (rule: any) => peerAdmits(type === 'Ingress' ? rule.from : rule.to, peer) && portAllowed(rule.ports, port),
      ),
    );
  };
  return (only === 'Ingress' || direction('Egress', from, to)) && (only === 'Egress' || direction('Ingress', to, from));
}

/**
 * Narrows `policies` to those that may select one of the given pods, in their order: the answer of `admits` depends on
 * those only, so it is the same with them as with all. A policy is filed under the first label its pod selector
 * matches, so that a thousand pods do not each read a thousand policies.
 */
export function policiesSelecting(policies: readonly any[]): (...pods: PodLabels[]) => any[] {
  const byFirstLabel = new Map<string, number[]>();
  const unfiled: number[] = [];
  policies.forEach((policy, index) => {
    const first = Object.entries(policy.spec?.podSelector?.matchLabels ?? {})[0];
    if (first === undefined) {
      unfiled.push(index);
    } else {
      const key = JSON.stringify(first);
      byFirstLabel.set(key, [...(byFirstLabel.get(key) ?? []), index]);
    }
  });
  return (...pods) => {
    const found = new Set(unfiled);
    for (const labels of pods) {
      for (const entry of Object.entries(labels)) {
        byFirstLabel.get(JSON.stringify(entry))?.forEach((index) => found.add(index));
      }
    }
    return [...found].sort((a, b) => a - b).map((index) => policies[index]);
  };
}
