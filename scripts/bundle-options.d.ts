import type { BuildOptions } from 'esbuild';

/** The esbuild options of the CLI's bundle (scripts/bundle-options.js). */
export declare const CLI_BUNDLE_OPTIONS: Readonly<BuildOptions>;
