import { App } from 'cdk8s';
import { ReferenceChart } from './lib/reference-chart';
import { ReferencePlatformChart } from './lib/reference-platform-chart';
import { GoldenImageBundle } from './lib/vm/golden-image-bundle';

const app = new App();
new ReferenceChart(app, 'shop');
new ReferencePlatformChart(app, 'platform');
app.synth();
// cdk8s writes only manifests: the golden image bundle goes to dist/golden-image/.
GoldenImageBundle.synthesizeAll(app);
