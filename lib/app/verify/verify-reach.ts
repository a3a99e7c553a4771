import { verifyExternalReference } from './verify-external';
import { MigratedService } from '../service/migrated-service';
import { EvaluatedPod, matches } from '../policy/policy-evaluator';
import { VerifiedManifests } from './verified-manifests';
import { VerifyCheck, VerifyStatus } from './verify-report';

// `verify` of references and networks: each name and port a service uses resolves to a Service that selects the
// server and a NetworkPolicy admits the client; services on a shared network reach each other, others do not.

export function checkReferences(m: VerifiedManifests): void {
  for (const ref of m.app.reachability.references) {
    // Inside the VM the compose project resolves its own names; across the split, both ways, a Service must.
    if ((m.inVm.has(ref.client) && m.inVm.has(ref.server)) || ref.client === ref.server) {
      continue;
    }
    const subject = `${ref.name}${ref.port !== undefined ? `:${ref.port}` : ''} → ${ref.server} (${ref.what})`;
    const server = serverName(m, ref.server);
    const external = m.app.externalServices?.[ref.server];
    if (server === undefined && external) {
      const name = ref.source === 'environment' ? external.name : ref.name.toLowerCase();
      const policies = m.byKind.get('NetworkPolicy') ?? [];
      const found = verifyExternalReference(
        external,
        ref,
        m.find('Service', name),
        m.pods.get(ref.client)?.labels,
        policies,
      );
      const status = found.ok ? VerifyStatus.OK : found.reported ? VerifyStatus.REPORTED : VerifyStatus.BROKEN;
      m.add(ref.client, VerifyCheck.REACH, subject, status, found.detail);
      continue;
    }
    if (server === undefined) {
      m.add(
        ref.client,
        VerifyCheck.REACH,
        subject,
        VerifyStatus.BROKEN,
        `service "${ref.server}" is not in the manifests`,
      );
      continue;
    }
    let name = ref.name.toLowerCase();
    const rewritten = m.warned(ref.at.path, ['host-rewrite']);
    if (ref.source === 'environment' && rewritten?.message.includes(`host "${ref.name}"`)) {
      // Rule 2: the value names the Service instead; its rewrite was reported.
      name = server;
    }
    const service = m.find('Service', name);
    if (!service || !selects(m, service, ref.server)) {
      const reported = m.warned(ref.at.path, ['file-host-reference', 'unreachable-service']);
      m.add(
        ref.client,
        VerifyCheck.REACH,
        subject,
        reported ? VerifyStatus.REPORTED : VerifyStatus.BROKEN,
        reported ? reported.message : `no Service "${name}" selects the pods of "${ref.server}"`,
      );
      continue;
    }
    const ports: any[] = service.spec?.ports ?? [];
    const port =
      ref.port !== undefined
        ? ports.find((p) => p.port === ref.port)
        : ports.find((p) => (p.protocol ?? 'TCP') === 'TCP');
    if (!port) {
      m.add(
        ref.client,
        VerifyCheck.REACH,
        subject,
        VerifyStatus.BROKEN,
        `the Service "${name}" has no port ${ref.port ?? '(TCP)'}: it has ${ports.map((p) => p.port).join(', ') || 'none'}`,
      );
      continue;
    }
    const unpublished = vmPortMissing(m, ref.server, port);
    if (unpublished) {
      m.add(
        ref.client,
        VerifyCheck.REACH,
        subject,
        VerifyStatus.BROKEN,
        `Service "${name}" port ${port.port}, but ${unpublished}`,
      );
      continue;
    }
    const admitted = admits(m, ref.client, ref.server, targetPort(port));
    m.add(
      ref.client,
      VerifyCheck.REACH,
      subject,
      admitted === true ? VerifyStatus.OK : VerifyStatus.BROKEN,
      admitted === true
        ? `Service "${name}" port ${port.port}`
        : `Service "${name}" port ${port.port}, but ${admitted}`,
    );
  }
}

/**
 * Every pair on a shared network reaches the server's TCP ports; a pair on no shared network does not. One
 * expectation per client and direction (pairs are quadratic in services), naming the services and each pair that
 * fails.
 */
export function checkNetworks(m: VerifiedManifests): void {
  // Each service's set of networks as a number, and whether two sets share a network, per pair of sets (few).
  const networkIds = new Map<string, number>();
  const networkSets: Set<string>[] = [];
  const networkId = new Map(
    m.app.model.services.map((s) => {
      const key = [...new Set(m.app.reachability.networksOf(s))].sort().join('\0');
      let id = networkIds.get(key);
      if (id === undefined) {
        id = networkSets.length;
        networkIds.set(key, id);
        networkSets.push(new Set(key === '' ? [] : key.split('\0')));
      }
      return [s.name, id];
    }),
  );
  const noNetworks = networkIds.get('') ?? networkIds.size;
  // By pair of sets, read when first met: unknown, no, yes.
  const shares = networkSets.map(() => new Int8Array(networkSets.length).fill(-1));
  const together = (a: number, b: number): boolean => {
    if (a === noNetworks || b === noNetworks) {
      return false;
    }
    if (shares[a][b] === -1) {
      shares[a][b] = [...networkSets[a]].some((n) => networkSets[b].has(n)) ? 1 : 0;
    }
    return shares[a][b] === 1;
  };
  const pod = (s: MigratedService): EvaluatedPod => ({
    name: s.composeName,
    labels: m.pods.get(s.composeName)!.labels,
  });
  const servers = m.app.services
    .filter((s) => s.service !== undefined && m.pods.has(s.composeName))
    .map((s) => ({
      pod: pod(s),
      tcp: s.ports.filter((p) => p.protocol === 'TCP').map((p) => p.port),
      nets: networkId.get(s.composeName) ?? noNetworks,
    }))
    .filter((s) => s.tcp.length > 0);
  // The policies' answer for a pair is the ingress of the server for the client's signature, and the egress of the
  // client for the server's signature (`PolicyEvaluator.admits`). Both are read once per signature and port, and looked
  // up by number in the loop over the pairs (a thousand services make a million).
  const evaluator = m.policies;
  const ingressBySignature = new Map<number, boolean[][]>();
  const ingress = (client: EvaluatedPod): boolean[][] => {
    const signature = evaluator.signature(client);
    let answers = ingressBySignature.get(signature);
    if (answers === undefined) {
      answers = servers.map((server) => server.tcp.map((port) => evaluator.ingressAdmits(client, server.pod, port)));
      ingressBySignature.set(signature, answers);
    }
    return answers;
  };
  const egressIds = new Map<string, number>();
  const egressId = servers.map((server) =>
    server.tcp.map((port) => {
      const key = `${evaluator.signature(server.pod)}:${port}`;
      let id = egressIds.get(key);
      if (id === undefined) {
        id = egressIds.size;
        egressIds.set(key, id);
      }
      return id;
    }),
  );
  // The clients of one signature on one set of networks meet the same servers: what they meet is read once per such
  // class. A client whose pairs all hold (the rule) is then settled by a few egress answers; one that may have a
  // failing pair is read server by server, as the expectation then names each failing pair.
  const classes = new Map<string, NetworkClass>();
  const classOf = (from: EvaluatedPod, mine: number): NetworkClass => {
    const key = `${evaluator.signature(from)}:${mine}`;
    let found = classes.get(key);
    if (found === undefined) {
      found = networkClass(servers, ingress(from), egressId, (nets) => together(mine, nets));
      classes.set(key, found);
    }
    return found;
  };
  for (const client of m.app.services.filter((s) => m.pods.has(s.composeName))) {
    const from = pod(client);
    const mine = networkId.get(client.composeName) ?? noNetworks;
    const other = (name: string) => name !== client.composeName && client.sidecarOf !== name;
    const known = classOf(from, mine);
    const holds =
      !known.shut.some(other) &&
      known.open.every(
        (group) =>
          evaluator.egressAdmits(from, group.server.pod, group.port) === group.onShared || !group.names.some(other),
      );
    if (holds) {
      for (const [names, what, ok] of [
        [known.shared, 'shared networks', 'admitted on their TCP ports'],
        [known.isolated, 'no shared network', 'not admitted'],
      ] as const) {
        const count =
          names.list.length -
          [...new Set([client.composeName, client.sidecarOf])].filter((n) => n !== undefined && names.has.has(n))
            .length;
        if (count > 0) {
          m.add(
            client.composeName,
            VerifyCheck.NETWORK,
            `${what}: ${listed(names.list, count, other)}`,
            VerifyStatus.OK,
            ok,
          );
        }
      }
      continue;
    }
    const ingressOf = ingress(from);
    // By (server signature, port): unknown, no, yes.
    const egress = new Int8Array(egressIds.size).fill(-1);
    const shared: string[] = [];
    const isolated: string[] = [];
    const problems: string[] = [];
    for (let index = 0; index < servers.length; index++) {
      const server = servers[index];
      const name = server.pod.name;
      if (name === client.composeName || client.sidecarOf === name) {
        continue;
      }
      const onShared = together(mine, server.nets);
      (onShared ? shared : isolated).push(name);
      const ingressOk = ingressOf[index];
      const ids = egressId[index];
      let wrong: number[] | undefined;
      for (let i = 0; i < server.tcp.length; i++) {
        let admitted = ingressOk[i];
        if (admitted) {
          let answer = egress[ids[i]];
          if (answer === -1) {
            answer = evaluator.egressAdmits(from, server.pod, server.tcp[i]) ? 1 : 0;
            egress[ids[i]] = answer;
          }
          admitted = answer === 1;
        }
        if (admitted !== onShared) {
          (wrong ??= []).push(server.tcp[i]);
        }
      }
      if (wrong !== undefined) {
        problems.push(
          `${name}:${wrong.join(',')} ${onShared ? 'not admitted on a shared network' : 'admitted without a shared network'}`,
        );
      }
    }
    const list = (names: string[]) =>
      names.length <= 6 ? names.join(', ') : `${names.slice(0, 6).join(', ')} and ${names.length - 6} more`;
    for (const [names, what, ok] of [
      [shared, 'shared networks', 'admitted on their TCP ports'],
      [isolated, 'no shared network', 'not admitted'],
    ] as const) {
      if (names.length === 0) {
        continue;
      }
      const mineWrong = problems.filter((p) => names.some((n) => p.startsWith(`${n}:`)));
      m.add(
        client.composeName,
        VerifyCheck.NETWORK,
        `${what}: ${list(names)}`,
        mineWrong.length === 0 ? VerifyStatus.OK : VerifyStatus.BROKEN,
        mineWrong.length === 0 ? ok : mineWrong.join('; '),
      );
    }
  }
}

/** A server of `checkNetworks`: its pod, TCP ports and set of networks (a number). */
interface NetworkServer {
  readonly pod: EvaluatedPod;
  readonly tcp: readonly number[];
  readonly nets: number;
}

/** Names in order, and as a set. */
interface NameList {
  readonly list: readonly string[];
  readonly has: ReadonlySet<string>;
}

/** What the clients of one signature on one set of networks meet among the servers. */
interface NetworkClass {
  /** The servers on a shared network, and the others, in order. */
  readonly shared: NameList;
  readonly isolated: NameList;
  /** Servers with a port their ingress shuts to these clients on a shared network: a failing pair whatever the egress. */
  readonly shut: readonly string[];
  /**
   * The ports their ingress opens to these clients, by the server's signature, the port and whether the pair shares
   * a network: a pair holds when the client's egress answer for that signature and port is the same as `onShared`.
   */
  readonly open: readonly { server: NetworkServer; port: number; onShared: boolean; names: string[] }[];
}

function networkClass(
  servers: readonly NetworkServer[],
  ingressOk: readonly (readonly boolean[])[],
  egressId: readonly (readonly number[])[],
  together: (nets: number) => boolean,
): NetworkClass {
  const shared: string[] = [];
  const isolated: string[] = [];
  const shut = new Set<string>();
  const open = new Map<number, { server: NetworkServer; port: number; onShared: boolean; names: string[] }>();
  servers.forEach((server, index) => {
    const name = server.pod.name;
    const onShared = together(server.nets);
    (onShared ? shared : isolated).push(name);
    server.tcp.forEach((port, i) => {
      if (!ingressOk[index][i]) {
        if (onShared) {
          shut.add(name);
        }
        return;
      }
      const key = egressId[index][i] * 2 + (onShared ? 1 : 0);
      const group = open.get(key);
      if (group === undefined) {
        open.set(key, { server, port, onShared, names: [name] });
      } else if (group.names[group.names.length - 1] !== name) {
        group.names.push(name);
      }
    });
  });
  return {
    shared: { list: shared, has: new Set(shared) },
    isolated: { list: isolated, has: new Set(isolated) },
    shut: [...shut],
    open: [...open.values()],
  };
}

/** The first six of `count` names that pass `keep`, and how many more. */
function listed(names: readonly string[], count: number, keep: (name: string) => boolean): string {
  const first: string[] = [];
  for (let i = 0; i < names.length && first.length < 6; i++) {
    if (keep(names[i])) {
      first.push(names[i]);
    }
  }
  return count <= 6 ? first.join(', ') : `${first.join(', ')} and ${count - 6} more`;
}

/** The Service name of a compose service (container or VM), or undefined when it has none. */
function serverName(m: VerifiedManifests, composeName: string): string | undefined {
  const container = m.migrated.get(composeName);
  if (container) {
    return container.service?.name ?? container.name;
  }
  return m.app.vmServices.find((s) => s.composeName === composeName)?.name;
}

/** True when the Service selects the pods that run the service: its workload's, or the VM's (`kubevirt.io/vm`). */
function selects(m: VerifiedManifests, service: any, composeName: string): boolean {
  const labels = m.labelsOf(composeName);
  const selector = service?.spec?.selector ?? {};
  return labels !== undefined && Object.keys(selector).length > 0 && matches(selector, labels);
}

/**
 * Why a Service port of a service in the VM reaches nothing, or undefined: its `targetPort` must be a port the VM's
 * compose file publishes on the VM's address (where the pod network arrives), for that container port.
 */
function vmPortMissing(m: VerifiedManifests, server: string, port: any): string | undefined {
  const vm = m.app.vmServices.find((s) => s.composeName === server);
  if (!vm?.ports) {
    return undefined;
  }
  const protocol = String(port.protocol ?? 'TCP').toLowerCase();
  const target = targetPort(port);
  if (vm.ports.some((p) => p.hostPort === target && p.target === port.port && p.protocol === protocol)) {
    return undefined;
  }
  return (
    `the VM's compose file does not publish "${server}" port ${port.port} on port ${target} of the VM's address ` +
    `(it publishes ${vm.ports.map((p) => `${p.hostPort}:${p.target}/${p.protocol}`).join(', ') || 'none of its ports'}), ` +
    'so the pod network reaches nothing there'
  );
}

/** True when the NetworkPolicies admit client → server on the server pod's port (a VM's port for a VM), or why not. */
function admits(m: VerifiedManifests, client: string, server: string, port: number): true | string {
  const from = m.labelsOf(client);
  const to = m.labelsOf(server);
  return from && to ? m.policies.admits({ name: client, labels: from }, { name: server, labels: to }, port) : true;
}

function targetPort(port: any): number {
  return typeof port.targetPort === 'number' ? port.targetPort : port.port;
}
