import * as fs from 'fs';
import * as path from 'path';
import { Chart, ChartProps } from 'cdk8s';
import { Construct } from 'constructs';
import { ComposeApp } from './app/compose-app';
import { ServiceTarget } from './app/settings';

/** The folder of the reference compose app, found from this file in `lib/` (ts-node, jest) or `build/lib/`. */
export function referenceAppDir(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'examples', 'reference', 'compose.yaml'))) {
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(`examples/reference/compose.yaml not found above ${__dirname}`);
    }
    dir = parent;
  }
  return path.join(dir, 'examples', 'reference');
}

/** Props of the reference chart: a chart's props plus the folder of the reference compose project. */
export interface ReferenceChartProps extends ChartProps {
  /**
   * The folder holding the reference compose.yaml.
   * @default - examples/reference of this project
   */
  readonly composeDir?: string;
}

/** Where the operator publishes the reference app's golden image (`<url>/shop-vm.qcow2`). */
export const REFERENCE_IMAGE_BASE_URL = 'https://images.example.com/shop';

/**
 * The reference migration: the shop in `examples/reference/compose.yaml` (web front end, API, worker, a one-shot
 * migration, postgres and redis, with secrets, a config and two networks) as Kubernetes manifests, and its legacy
 * reporting daemon, which drives the Docker engine, in a KubeVirt VM booted from a golden image (assessment routes
 * it: `target: ServiceTarget.AUTO`). `main.ts` synthesizes it into `dist/`, the image bundle into
 * `dist/golden-image/shop-vm/`.
 */
export class ReferenceChart extends Chart {
  public readonly app: ComposeApp;

  constructor(scope: Construct, id: string, props: ReferenceChartProps = {}) {
    super(scope, id, props);
    this.app = new ComposeApp(this, 'Shop', {
      composeFile: 'compose.yaml',
      // No shell environment: the output must not depend on the machine that synthesizes it.
      loadOptions: { workingDir: props.composeDir ?? referenceAppDir(), env: {} },
      namespace: 'shop',
      services: {
        web: { ingressHost: 'shop.example.com' },
        reporting: { ingressHost: 'reports.shop.example.com' },
      },
      target: ServiceTarget.AUTO,
      vm: { imageBaseUrl: REFERENCE_IMAGE_BASE_URL },
    });
  }
}
