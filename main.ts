import { App } from 'cdk8s';
import { ReferenceChart } from './lib/reference-chart';

const app = new App();
new ReferenceChart(app, 'shop');
app.synth();
