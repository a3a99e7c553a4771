import { ComposeApp } from '../../app/compose-app';
import { PortAccess } from '../../app/service/exposure';
import { PublishedPort, WorkloadKind } from '../../app/service/migrated-service';
import { compare } from '../../util/sort';

/** One service reaching another: the picture's solid arrows. */
export interface TrafficEdge {
  /** The compose name of the client. */
  readonly from: string;
  /** The compose name of the server. */
  readonly to: string;
  /** The port it connects to, when known. */
  readonly port?: number;
}

/** A deploy wave, for the picture's columns. */
export interface TopologyWave {
  readonly folder: string;
  /** Compose names of the services in it. */
  readonly services: readonly string[];
}

/**
 * Who talks to whom: the app's reachability (`ComposeApp.reachability`, what `verify` checks), one edge per client,
 * server and port among the services that were migrated, and an edge without a port for a reference to a server that
 * has no port to find (the picture marks a server without a Service: its clients cannot reach it). A service's own
 * references to itself are left out.
 */
export function trafficEdges(app: ComposeApp): TrafficEdge[] {
  const migrated = new Set([...app.services, ...app.vmServices].map((m) => m.composeName));
  const edges = new Map<string, TrafficEdge>();
  const add = (from: string, to: string, port?: number) => {
    if (from !== to && migrated.has(from) && migrated.has(to)) {
      edges.set(`${from}\0${to}\0${port ?? ''}`, { from, to, port });
    }
  };
  app.reachability.edges().forEach((edge) => add(edge.client, edge.server, edge.port));
  const withPort = new Set([...edges.values()].map((e) => `${e.from}\0${e.to}`));
  app.reachability.references
    .filter((ref) => !withPort.has(`${ref.client}\0${ref.server}`))
    .forEach((ref) => add(ref.client, ref.server));
  return [...edges.values()].sort(
    (a, b) => compare(a.from, b.from) || compare(a.to, b.to) || (a.port ?? 0) - (b.port ?? 0),
  );
}

/**
 * A Mermaid flowchart of the app for an operator: one node per service (shaped by what it became), grouped in one
 * column per deploy wave (the VM's services in their own), the traffic between them with its port, a dashed arrow
 * for a `depends_on` condition that no traffic arrow already shows (`service_healthy`, a Job's completion), and the
 * ways in from outside. A service's compose networks are written in its box when there are several.
 */
export function topologyDiagram(
  app: ComposeApp,
  waves: readonly TopologyWave[],
  edges: readonly TrafficEdge[] = trafficEdges(app),
): string {
  const lines = ['flowchart LR'];
  const serviceId = (composeName: string) => `svc_${id(composeName)}`;
  // Looked up by name once: the picture of a 1,000-service app has thousands of nodes and arrows.
  const services = new Map(app.services.map((s) => [s.composeName, s]));
  const vmServices = new Map(app.vmServices.map((s) => [s.composeName, s]));
  const composeServices = new Map(app.model.services.map((s) => [s.name, s]));
  const manyNetworks = app.model.networks.length > 1;
  const declared = new Set(app.model.networks.map((n) => n.name));
  const networksOf = (composeName: string) => {
    if (!manyNetworks) {
      return '';
    }
    const own = (composeServices.get(composeName)?.networks ?? []).map((n) => n.name).filter((n) => declared.has(n));
    return own.length > 0 ? `<br/><i>${own.map(text).join(', ')}</i>` : '';
  };
  const node = (composeName: string): string | undefined => {
    const service = services.get(composeName);
    const sid = serviceId(composeName);
    if (service) {
      const nets = networksOf(composeName);
      if (service.kind === WorkloadKind.STATEFUL) {
        return `${sid}[("${text(service.name)}<br/>${text(service.statefulDependency?.engine.name ?? 'stateful')}${nets}")]`;
      }
      if (service.kind === WorkloadKind.JOB || service.kind === WorkloadKind.CRON_JOB) {
        return `${sid}[["${text(service.name)}<br/>${service.kind === WorkloadKind.JOB ? 'Job' : 'CronJob'}${nets}"]]`;
      }
      if (service.sidecarOf !== undefined) {
        return `${sid}["${text(service.name)}<br/>container in the pod of ${text(service.sidecarOf)}${nets}"]`;
      }
      const replicas = service.replicas === 1 ? '' : ` ×${service.replicas}`;
      return `${sid}["${text(service.name)}<br/>${text(service.kind === WorkloadKind.DAEMON_SET ? 'DaemonSet' : service.kind === WorkloadKind.STATEFUL_SET ? 'StatefulSet' : 'Deployment')}${replicas}${nets}"]`;
    }
    const inVm = vmServices.get(composeName);
    return inVm ? `${sid}[/"${text(inVm.name)}<br/>compose in the VM${networksOf(composeName)}"/]` : undefined;
  };
  for (const wave of waves) {
    const nodes = wave.services.map(node).filter((n): n is string => n !== undefined);
    if (nodes.length === 0) {
      continue;
    }
    const title = /^\d+-vm$/.test(wave.folder) && app.vm ? `${wave.folder}: VM ${app.vm.vm.name}` : wave.folder;
    lines.push(`  subgraph wave_${id(wave.folder)} ["${text(title)}"]`, ...nodes.map((n) => `    ${n}`), '  end');
  }
  const migrated = new Set([...services.keys(), ...vmServices.keys()]);
  const conditions = new Map<string, string>();
  for (const service of app.model.services.filter((s) => migrated.has(s.name))) {
    for (const dependency of service.dependsOn.filter(
      (d) => migrated.has(d.service) && d.condition !== 'service_started',
    )) {
      conditions.set(
        `${service.name}\0${dependency.service}`,
        dependency.condition === 'service_healthy' ? 'healthy' : 'completed',
      );
    }
  }
  for (const edge of edges) {
    const condition = conditions.get(`${edge.from}\0${edge.to}`);
    const server = services.get(edge.to) ?? vmServices.get(edge.to);
    const unreachable = server !== undefined && server.service === undefined;
    const label = [
      edge.port !== undefined ? String(edge.port) : '',
      condition ? `once ${condition}` : '',
      unreachable ? 'no Service' : '',
    ]
      .filter((l) => l)
      .join(', ');
    lines.push(`  ${serviceId(edge.from)} -->${label ? `|"${label}"|` : ''} ${serviceId(edge.to)}`);
  }
  const drawn = new Set(edges.map((e) => `${e.from}\0${e.to}`));
  for (const [pair, condition] of [...conditions.entries()].sort(([a], [b]) => compare(a, b))) {
    if (!drawn.has(pair)) {
      const [from, to] = pair.split('\0');
      lines.push(`  ${serviceId(from)} -.->|"waits: ${condition}"| ${serviceId(to)}`);
    }
  }
  const entries: string[] = [];
  for (const service of [...services.values(), ...vmServices.values()].sort((a, b) =>
    compare(a.composeName, b.composeName),
  )) {
    const sid = serviceId(service.composeName);
    for (const host of [...new Set(service.ingressRules.map((r) => `${r.host}${r.path === '/' ? '' : r.path}`))]) {
      entries.push(`  internet -->|"${text(host)}"| ${sid}`);
    }
    entries.push(...externalEntries(service.publishedPorts, sid));
  }
  if (entries.length > 0) {
    lines.push('  internet((Internet))', ...entries);
  }
  return lines.join('\n');
}

/** Arrows from the internet for the LoadBalancer and NodePort ports of a service. */
function externalEntries(published: readonly PublishedPort[], sid: string): string[] {
  const entries: string[] = [];
  for (const access of [PortAccess.LOAD_BALANCER, PortAccess.NODE_PORT]) {
    const ports = [
      ...new Set(
        published
          .filter((p) => p.access === access)
          .map(
            (p) =>
              `${p.mapping.published ?? p.mapping.target}${p.mapping.protocol === 'tcp' ? '' : `/${p.mapping.protocol}`}`,
          ),
      ),
    ];
    if (ports.length > 0) {
      entries.push(`  internet -->|"${access === PortAccess.NODE_PORT ? 'NodePort ' : ''}${ports.join(' ')}"| ${sid}`);
    }
  }
  return entries;
}

/** A Mermaid node id: letters, digits and `_` (compose names that differ only there already collide as Kubernetes names). */
function id(name: string): string {
  return name.replace(/[^A-Za-z0-9]/g, '_');
}

/** Text inside a quoted Mermaid label. */
function text(value: string): string {
  return value.replace(/["<>|]/g, '');
}
