import { MigratedService } from './migrated-service';
import { EvaluatedPod, matches } from './policy-evaluator';
import { VerifiedManifests } from './verified-manifests';
import { VerifyCheck, VerifyStatus } from './verify-report';

// `verify` of references and networks: each name and port a service uses resolves to a Service that selects the
// server and a NetworkPolicy admits the client; services on a shared network reach each other, others do not.

export function checkReferences(m: VerifiedManifests): void {
  for (const ref of m.app.reachability.references) {
    if (m.inVm.has(ref.client) || ref.client === ref.server) {
      continue;
    }
    const subject = `${ref.name}${ref.port !== undefined ? `:${ref.port}` : ''} → ${ref.server} (${ref.what})`;
    const server = serverName(m, ref.server);
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
  for (const client of m.app.services.filter((s) => m.pods.has(s.composeName))) {
    const from = pod(client);
    const mine = networkId.get(client.composeName) ?? noNetworks;
    const ingressOf = ingress(from);
    // By (server signature, port): unknown, no, yes.
    const egress = new Int8Array(egressIds.size).fill(-1);
    const shared: string[] = [];
    const isolated: string[] = [];
    const problems: string[] = [];
    servers.forEach((server, index) => {
      const name = server.pod.name;
      if (name === client.composeName || client.sidecarOf === name) {
        return;
      }
      const onShared = together(mine, server.nets);
      (onShared ? shared : isolated).push(name);
      const ingressOk = ingressOf[index];
      const ids = egressId[index];
      const wrong = server.tcp.filter((port, i) => {
        let admitted = ingressOk[i];
        if (admitted) {
          let answer = egress[ids[i]];
          if (answer === -1) {
            answer = evaluator.egressAdmits(from, server.pod, port) ? 1 : 0;
            egress[ids[i]] = answer;
          }
          admitted = answer === 1;
        }
        return admitted !== onShared;
      });
      if (wrong.length > 0) {
        problems.push(
          `${name}:${wrong.join(',')} ${onShared ? 'not admitted on a shared network' : 'admitted without a shared network'}`,
        );
      }
    });
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

/** The Service name of a compose service (container or VM), or undefined when it has none. */
function serverName(m: VerifiedManifests, composeName: string): string | undefined {
  const container = m.migrated.get(composeName);
  if (container) {
    return container.service?.name ?? container.name;
  }
  return m.app.vmServices.find((s) => s.composeName === composeName)?.name;
}

function selects(m: VerifiedManifests, service: any, composeName: string): boolean {
  if (!service) {
    return false;
  }
  const pod = m.pods.get(composeName);
  if (pod) {
    return matches(service.spec?.selector ?? {}, pod.labels);
  }
  const vm = m.app.vmServices.find((s) => s.composeName === composeName);
  return vm !== undefined && service.metadata.name === vm.name;
}

/** True when the NetworkPolicies admit client → server on a container port, or why not. */
function admits(m: VerifiedManifests, client: string, server: string, port: number): true | string {
  const from = m.pods.get(client);
  const to = m.pods.get(server);
  // A service in the VM is reached through the VM's own policy workload: not modelled here beyond its Service.
  return from && to
    ? m.policies.admits({ name: client, labels: from.labels }, { name: server, labels: to.labels }, port)
    : true;
}

function targetPort(port: any): number {
  return typeof port.targetPort === 'number' ? port.targetPort : port.port;
}
