import { ComposeApp } from '../app/compose-app';
import { PortAccess } from '../app/exposure';
import { PublishedPort, WorkloadKind } from '../app/migrated-service';

/**
 * A Mermaid flowchart of the app: one node per service (shaped by what it became; the VM's services inside a box),
 * one per compose network with a dotted line to each member, an arrow per `depends_on` labelled with its condition, and the external entry points
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
    } else if (service.sidecarOf !== undefined) {
      lines.push(`  ${sid}["${text(service.name)}<br/>container in the pod of ${text(service.sidecarOf)}"]`);
    } else {
      const replicas = service.replicas === 1 ? '' : ` ×${service.replicas}`;
      lines.push(`  ${sid}["${text(service.name)}<br/>Deployment${replicas}"]`);
    }
    for (const rule of service.ingressRules) {
      entries.push(`  internet((Internet)) -->|"Ingress ${text(rule.host)}${text(rule.path)}"| ${sid}`);
    }
    entries.push(...externalEntries(service.publishedPorts, sid));
  }
  if (app.vm && app.vmServices.length > 0) {
    lines.push(`  subgraph vm_${id(app.vm.vm.name)} ["VM ${text(app.vm.vm.name)}"]`);
    for (const service of app.vmServices) {
      const sid = serviceId(service.composeName);
      lines.push(`    ${sid}[/"${text(service.name)}<br/>compose in the VM"/]`);
      for (const rule of service.ingressRules) {
        entries.push(`  internet((Internet)) -->|"Ingress ${text(rule.host)}${text(rule.path)}"| ${sid}`);
      }
      entries.push(...externalEntries(service.publishedPorts, sid));
    }
    lines.push('  end');
  }
  for (const network of app.model.networks) {
    lines.push(`  net_${id(network.name)}{{"network ${text(network.name)}${network.internal ? ' (internal)' : ''}"}}`);
  }
  const migrated = new Set([...app.services, ...app.vmServices].map((s) => s.composeName));
  for (const service of app.model.services.filter((s) => migrated.has(s.name))) {
    for (const network of service.networks.map((n) => n.name).filter((n) => declared.has(n))) {
      lines.push(`  ${serviceId(service.name)} -.- net_${id(network)}`);
    }
  }
  for (const service of app.model.services) {
    for (const dependency of service.dependsOn.filter((d) => migrated.has(d.service))) {
      lines.push(`  ${serviceId(service.name)} -->|${dependency.condition}| ${serviceId(dependency.service)}`);
    }
  }
  lines.push(...entries);
  return lines.join('\n');
}

/** Arrows from the internet for the LoadBalancer and NodePort ports of a service. */
function externalEntries(published: readonly PublishedPort[], sid: string): string[] {
  const entries: string[] = [];
  for (const access of [PortAccess.LOAD_BALANCER, PortAccess.NODE_PORT]) {
    const ports = [...new Set(published.filter((p) => p.access === access)
      .map((p) => `${p.mapping.published ?? p.mapping.target}/${p.mapping.protocol}`))];
    if (ports.length > 0) {
      entries.push(`  internet((Internet)) -->|"${access} ${ports.join(', ')}"| ${sid}`);
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
