import { Chart, ChartProps } from 'cdk8s';
import { Construct } from 'constructs';
import { KubeVirtPlatform } from './vm/kubevirt-platform';

/**
 * The VM extension the reference migration's VM needs: the KubeVirt and CDI custom resources, apart from the app's
 * chart because they are cluster-wide (KubeVirt's lives in namespace `kubevirt`, CDI's is cluster-scoped).
 * `main.ts` synthesizes it into `dist/platform.k8s.yaml`; apply it after the operators (README, "VM workflow").
 */
export class ReferencePlatformChart extends Chart {
  public readonly platform: KubeVirtPlatform;

  constructor(scope: Construct, id: string, props: Omit<ChartProps, 'namespace'> = {}) {
    super(scope, id, props);
    this.platform = new KubeVirtPlatform(this, 'KubeVirt');
  }
}
