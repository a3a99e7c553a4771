import { Manifest, isObject, joinPath } from './problems';

/** A pod template inside a document: a Pod itself, a workload's template, a CronJob's job template. */
export interface PodTemplate {
  readonly doc: Manifest;
  /** Path to the pod spec, e.g. `spec.template.spec`. */
  readonly path: string;
  readonly spec: Record<string, any>;
  /** Path to the template's labels, e.g. `spec.template.metadata.labels`. */
  readonly labelsPath: string;
  readonly labels: Record<string, unknown>;
  /** Path to the selector that must match the labels (`spec.selector`), when the kind has one. */
  readonly selectorPath?: string;
}

/** A container of a pod template. */
export interface ContainerRef {
  readonly template: PodTemplate;
  /** Path to the container, e.g. `spec.template.spec.initContainers[0]`. */
  readonly path: string;
  readonly container: Record<string, any>;
}

/**
 * A VirtualMachineInstance spec inside a document: a VMI itself, a VM's, a replica set's or a pool's template. The
 * shape of a pod template, with `path` and `spec` those of the VMI spec.
 */
export type VmTemplate = PodTemplate;

/** Where each kind keeps its pod template (a path to the template, `''` for a Pod), and whether it has a selector. */
const POD_TEMPLATES: Record<string, { template: string; selector?: string }> = {
  Pod: { template: '' },
  PodTemplate: { template: 'template' },
  Deployment: { template: 'spec.template', selector: 'spec.selector' },
  ReplicaSet: { template: 'spec.template', selector: 'spec.selector' },
  StatefulSet: { template: 'spec.template', selector: 'spec.selector' },
  DaemonSet: { template: 'spec.template', selector: 'spec.selector' },
  ReplicationController: { template: 'spec.template', selector: 'spec.selector' },
  Job: { template: 'spec.template', selector: 'spec.selector' },
  CronJob: { template: 'spec.jobTemplate.spec.template', selector: 'spec.jobTemplate.spec.selector' },
};

const VM_TEMPLATES: Record<string, { template: string; selector?: string }> = {
  VirtualMachineInstance: { template: '' },
  VirtualMachine: { template: 'spec.template' },
  VirtualMachineInstanceReplicaSet: { template: 'spec.template', selector: 'spec.selector' },
  VirtualMachinePool: { template: 'spec.virtualMachineTemplate.spec.template', selector: 'spec.selector' },
};

export function podTemplates(docs: readonly Manifest[]): PodTemplate[] {
  return templates(docs, POD_TEMPLATES);
}

export function vmTemplates(docs: readonly Manifest[]): VmTemplate[] {
  return templates(docs, VM_TEMPLATES);
}

/** Every container, init container and ephemeral container of every pod template. */
export function containers(docs: readonly Manifest[]): ContainerRef[] {
  const found: ContainerRef[] = [];
  for (const template of podTemplates(docs)) {
    for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
      const list = template.spec[field];
      if (Array.isArray(list)) {
        list.forEach((container, i) => {
          if (isObject(container)) {
            found.push({ template, path: joinPath(joinPath(template.path, field), i), container });
          }
        });
      }
    }
  }
  return found;
}

/** The value at a dotted path (no indexes); undefined when any step is missing. */
export function get(value: unknown, path: string): any {
  if (!path) {
    return value;
  }
  return path.split('.').reduce((v: any, key) => (isObject(v) ? v[key] : undefined), value);
}

function templates(docs: readonly Manifest[], table: Record<string, { template: string; selector?: string }>) {
  const found: PodTemplate[] = [];
  for (const doc of docs) {
    const where = isObject(doc) ? table[doc.kind] : undefined;
    const template = where && get(doc, where.template);
    if (!where || !isObject(template) || !isObject(template.spec)) {
      continue;
    }
    const prefix = where.template;
    const labels = get(template, 'metadata.labels');
    found.push({
      doc,
      path: prefix ? `${prefix}.spec` : 'spec',
      spec: template.spec,
      labelsPath: prefix ? `${prefix}.metadata.labels` : 'metadata.labels',
      labels: isObject(labels) ? labels : {},
      selectorPath: where.selector,
    });
  }
  return found;
}
