import { ComposeApp } from '../app/compose-app';
import { PortAccess, WorkloadKind } from '../app/migrated-service';

/**
 * A Mermaid flowchart of the app: one node per service (shaped by what it became), one per compose network with a
 * dotted line to each member, an arrow per `depends_on` labelled with its condition, and the external entry points
 * (Ingress hosts, LoadBalancer and NodePort ports) from the internet.
 */
export function topologyDiagram(app: ComposeApp): string {
  const lines = ['flowchart LR'];
  const declared = new Map(app.model.networks.map((n) => [n.name, n]));
  const serviceId = (composeName: string) => `svc_${id(composeName)}`;
  const entries: string[] = [];
  for (const service of app.services) {
    const sid = serviceId(service.composeName);
    if (service.kind === WorkloadKind.STATEFUL) {
      lines.push(`  ${sid}[("${text(service.name)}<br/>${text(service.statefulDependency?.engine.name ?? 'stateful')}")]`);
    } else if (service.kind === WorkloadKind.JOB) {
      lines.push(`  ${sid}[["${text(service.name)}<br/>Job"]]`);
    } else {
      const replicas = service.replicas === 1 ? '' : ` ×${service.replicas}`;
      lines.push(`  ${sid}["${text(service.name)}<br/>Deployment${replicas}"]`);
    }
    for (const rule of service.ingressRules) {
      entries.push(`  internet((Internet)) -->|"Ingress ${text(rule.host)}${text(rule.path)}"| ${sid}`);
    }
    const external = service.publishedPorts.filter((p) => p.access === PortAccess.LOAD_BALANCER || p.access === PortAccess.NODE_PORT);
    for (const access of [PortAccess.LOAD_BALANCER, PortAccess.NODE_PORT]) {
      const ports = [...new Set(external.filter((p) => p.access === access)
        .map((p) => `${p.mapping.published ?? p.mapping.target}/${p.mapping.protocol}`))];
      if (ports.length > 0) {
        entries.push(`  internet((Internet)) -->|"${access} ${ports.join(', ')}"| ${sid}`);
      }
    }
  }
  for (const network of app.model.networks) {
    lines.push(`  net_${id(network.name)}{{"network ${text(network.name)}${network.internal ? ' (internal)' : ''}"}}`);
  }
  for (const service of app.services) {
    for (const network of service.networks.filter((n) => declared.has(n))) {
      lines.push(`  ${serviceId(service.composeName)} -.- net_${id(network)}`);
    }
  }
  const migrated = new Set(app.services.map((s) => s.composeName));
  for (const service of app.model.services) {
    for (const dependency of service.dependsOn.filter((d) => migrated.has(d.service))) {
      lines.push(`  ${serviceId(service.name)} -->|${dependency.condition}| ${serviceId(dependency.service)}`);
    }
  }
  lines.push(...entries);
  return lines.join('\n');
}

/** A Mermaid node id: letters, digits and `_` (compose names that differ only there already collide as Kubernetes names). */
function id(name: string): string {
  return name.replace(/[^A-Za-z0-9]/g, '_');
}

/** Text inside a quoted Mermaid label. */
function text(value: string): string {
  return value.replace(/["<>|]/g, '');
}
