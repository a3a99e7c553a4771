import * as fs from 'fs';
import * as path from 'path';
import { Chart, ChartProps } from 'cdk8s';
import { Construct } from 'constructs';
import { ComposeApp } from './app/compose-app';

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

export interface ReferenceChartProps extends ChartProps {
  /**
   * The folder holding the reference compose.yaml.
   * @default - examples/reference of this project
   */
  readonly composeDir?: string;
}

/**
 * The reference migration: the shop in `examples/reference/compose.yaml` (web front end, API, worker, a one-shot
 * migration, postgres and redis, with secrets, a config and two networks) as Kubernetes manifests. `main.ts`
 * synthesizes it into `dist/`.
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
      },
    });
  }
}
