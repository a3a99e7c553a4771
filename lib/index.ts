// The public API of cdk8s-compose: the constructs, their props, enums, error types, the loader entry points and the
// few functions users call. Everything else stays exported from its own module (for the CLI and the tests) but is
// not part of the package's API. test/conformance/public-api.test.ts holds this file under 100 names, every
// exported interface documented; docs/constructs.md ("What the package exports") lists the same names. Types only read
// from a result (a warning group, a reachability edge, a wave, an assessment) or that only ComposeApp can fill
// (MigratedServiceProps) are left out: their values still type-check from the .d.ts files.

// The loader and its model.
export { loadCompose, loadComposeFromString, DEFAULT_LOAD_LIMITS } from './compose/load';
export type { LoadComposeOptions, LoadComposeFromStringOptions, LoadLimits, LoadResult } from './compose/load';
export type { ComposeModel, ComposeService, ComposeLocation } from './compose/model';

// Errors and warnings.
export { ComposeError, isComposeError, formatWarning } from './compose/errors';
export type { ComposeErrorDetails, ComposeWarning } from './compose/errors';
export { groupWarnings, formatWarningGroup } from './compose/warning-groups';

// ComposeApp and the constructs it makes.
export { ComposeApp, COMPOSE_APP_DEFAULTS, WARNING_METADATA } from './app/compose-app';
export type { ComposeAppProps, ComposeAppVmOptions } from './app/compose-app';
export { SharedVolumes, COMPOSE_SOURCE_ANNOTATION } from './app/storage/claim-sources';
export { ExternalService } from './app/external-service';
export type { ExternalEndpoint } from './app/external-service';
export { Exposure, ServiceTarget } from './app/settings';
export type { ServiceOverrides, VolumeOverrides, HttpOptions } from './app/settings';
export { MigratedService, WorkloadKind } from './app/service/migrated-service';
export { VmMigratedService } from './app/vm/vm-migrated-service';
export { ServiceAutoscaler } from './app/service/autoscaler';
export type { ServiceAutoscalerProps, AutoscalingSettings } from './app/service/autoscaler';
export { ComposeNetworkPolicies } from './base/network-policy';
export type { ComposeNetworkPoliciesProps } from './base/network-policy';
export { NamespaceQuota } from './app/quota/quota';
export type { NamespaceQuotaProps } from './app/quota/quota';
export { DEFAULT_SENSITIVE_NAME_PATTERNS, Redactor } from './compose/sensitive';
export { Reachability, reachabilityEdges } from './app/policy/reachability';
export { SYNC_WAVE_ANNOTATION, WaveKind, annotateSyncWaves, planWaves } from './app/deploy-waves';
export { VerifyStatus, verifyManifests } from './app/verify/verify';
export type { VerifyReport } from './app/verify/verify';

// Stateful dependencies.
export { StatefulDependency, WorkloadController } from './stateful/stateful-dependency';
export type { StatefulDependencyProps } from './stateful/stateful-dependency';
export { DatabaseEngine } from './stateful/engine';
export type { DatabaseCredentials, GenericEngineOptions } from './stateful/engine';
export { DatabaseBackup } from './stateful/database-backup';
export type { DatabaseBackupOptions, DatabaseBackupProps } from './stateful/database-backup';

// KubeVirt VMs and golden images.
export { GoldenImageVm } from './vm/golden-image-vm';
export type { GoldenImageVmProps } from './vm/golden-image-vm';
export { ComposeVm, MAINTENANCE_USER } from './vm/compose-vm';
export type { ComposeVmProps } from './vm/compose-vm';
export { ComposeVmChart } from './vm/compose-vm-chart';
export type { ComposeVmChartProps } from './vm/compose-vm-chart';
export { GoldenImageBundle } from './vm/golden-image-bundle';
export type { GoldenImageBundleProps, GoldenImageBundleFromFileOptions } from './vm/golden-image-bundle';
export { CloudConfig, CloudInitPassword } from './vm/cloud-init';
export type { CloudConfigProps } from './vm/cloud-init';
export { KubeVirtPlatform, KubeVirtFeatureGate } from './vm/kubevirt-platform';
export type { KubeVirtPlatformProps } from './vm/kubevirt-platform';
export { DiskSource } from './vm/disk-source';
export type { DiskSourceHttpOptions } from './vm/disk-source';
export { VmNetwork } from './vm/vm-network';
export { VmVolume } from './vm/vm-volume';
export {
  RunStrategy,
  DiskBus,
  DiskCache,
  DiskIo,
  InterfaceBinding,
  InterfaceModel,
  EvictionStrategy,
  HugepageSize,
} from './vm/vm-devices';
export { VmAccessMode } from './vm/vm-root-disk';
export { assessService } from './vm/assess';
export { vmInstallSteps } from './vm/install-steps';
export type { VmInstallStepsOptions } from './vm/install-steps';
export { preseed, QemuAccelerator } from './vm/golden-image-files';

// The CLI, as a function.
export { main as runCli } from './cli/main';
export { ExitCode } from './cli/io';
export type { CliEnvironment, CliIo } from './cli/io';
