import { ApiObject, ApiObjectMetadata, ApiObjectMetadataDefinition } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';

/**
 * The workloads this library renders. kplus addresses a workload's pods by a `cdk8s.io/metadata.addr` label it adds to
 * every pod template (and, through `toPodSelectorConfig`, to the selector of a StatefulSet's Service). This library
 * addresses pods by the labels it gives them (`app`), decided here once for every workload: the pod template carries
 * exactly `podMetadata`'s labels, a Deployment, StatefulSet or DaemonSet selects its pods by them, and whoever selects
 * the pods (a StatefulSet's Service, a network policy) gets the workload's own selector.
 */

/** Props every labelled workload takes on top of its kplus props: the pods' labels are required. */
export interface LabelledPodProps {
  /** The pods' metadata; its labels select them. */
  readonly podMetadata: ApiObjectMetadata & { readonly labels: Readonly<Record<string, string>> };
}

/** The pod metadata kplus would make, without the address label. */
function podMetadataOf(apiObject: ApiObject, props: LabelledPodProps): ApiObjectMetadataDefinition {
  return new ApiObjectMetadataDefinition({ ...props.podMetadata, apiObject });
}

/**
 * The selector of the pods: the labels the workload selects them by (none while kplus constructs it, before its
 * selector is set), in the workload's namespace, as kplus's own selector config has it.
 */
function selectorConfigOf(workload: kplus.Workload, labels: Readonly<Record<string, string>>): kplus.PodSelectorConfig {
  return {
    labelSelector: kplus.LabelSelector.of({ labels: { ...labels } }),
    namespaces: workload.metadata.namespace ? { names: [workload.metadata.namespace] } : undefined,
  };
}

/** A Deployment whose pods carry and are selected by `podMetadata.labels`. */
export class LabelledDeployment extends kplus.Deployment {
  private readonly labelledPodMetadata: ApiObjectMetadataDefinition;

  constructor(scope: Construct, id: string, props: kplus.DeploymentProps & LabelledPodProps) {
    super(scope, id, { ...props, select: false });
    this.labelledPodMetadata = podMetadataOf(this.apiObject, props);
    this.select(kplus.LabelSelector.of({ labels: props.podMetadata.labels }));
  }

  public get podMetadata(): ApiObjectMetadataDefinition {
    return this.labelledPodMetadata;
  }

  public toPodSelectorConfig(): kplus.PodSelectorConfig {
    return selectorConfigOf(this, this.matchLabels);
  }
}

/**
 * A StatefulSet whose pods carry and are selected by `podMetadata.labels`. kplus makes its Service select the
 * StatefulSet while constructing it, before the selector exists, so the Service keeps only the selector its owner gave.
 */
export class LabelledStatefulSet extends kplus.StatefulSet {
  private readonly labelledPodMetadata: ApiObjectMetadataDefinition;

  constructor(scope: Construct, id: string, props: kplus.StatefulSetProps & LabelledPodProps) {
    super(scope, id, { ...props, select: false });
    this.labelledPodMetadata = podMetadataOf(this.apiObject, props);
    this.select(kplus.LabelSelector.of({ labels: props.podMetadata.labels }));
  }

  public get podMetadata(): ApiObjectMetadataDefinition {
    return this.labelledPodMetadata;
  }

  public toPodSelectorConfig(): kplus.PodSelectorConfig {
    return selectorConfigOf(this, this.matchLabels);
  }
}

/** A DaemonSet whose pods carry and are selected by `podMetadata.labels`. */
export class LabelledDaemonSet extends kplus.DaemonSet {
  private readonly labelledPodMetadata: ApiObjectMetadataDefinition;

  constructor(scope: Construct, id: string, props: kplus.DaemonSetProps & LabelledPodProps) {
    super(scope, id, { ...props, select: false });
    this.labelledPodMetadata = podMetadataOf(this.apiObject, props);
    this.select(kplus.LabelSelector.of({ labels: props.podMetadata.labels }));
  }

  public get podMetadata(): ApiObjectMetadataDefinition {
    return this.labelledPodMetadata;
  }

  public toPodSelectorConfig(): kplus.PodSelectorConfig {
    return selectorConfigOf(this, this.matchLabels);
  }
}

/** A Job whose pods carry exactly `podMetadata.labels` (a Job has no selector of its own to write). */
export class LabelledJob extends kplus.Job {
  private readonly labelledPodMetadata: ApiObjectMetadataDefinition;
  private readonly podLabels: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: kplus.JobProps & LabelledPodProps) {
    super(scope, id, props);
    this.labelledPodMetadata = podMetadataOf(this.apiObject, props);
    this.podLabels = props.podMetadata.labels;
  }

  public get podMetadata(): ApiObjectMetadataDefinition {
    return this.labelledPodMetadata;
  }

  public toPodSelectorConfig(): kplus.PodSelectorConfig {
    return selectorConfigOf(this, this.podLabels);
  }
}

/** A CronJob whose pods carry exactly `podMetadata.labels`. */
export class LabelledCronJob extends kplus.CronJob {
  private readonly labelledPodMetadata: ApiObjectMetadataDefinition;
  private readonly podLabels: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: kplus.CronJobProps & LabelledPodProps) {
    super(scope, id, props);
    this.labelledPodMetadata = podMetadataOf(this.apiObject, props);
    this.podLabels = props.podMetadata.labels;
  }

  public get podMetadata(): ApiObjectMetadataDefinition {
    return this.labelledPodMetadata;
  }

  public toPodSelectorConfig(): kplus.PodSelectorConfig {
    return selectorConfigOf(this, this.podLabels);
  }
}
