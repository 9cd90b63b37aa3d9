export { ClientError, isClientError, type ClientErrorCode } from './client-error.js';
export {
  defaultKubeConfigPath,
  emptyKubeConfig,
  loadKubeConfig,
  readKubeConfigFile,
  setCurrentContext,
  type AuthInfo,
  type Cluster,
  type Context,
  type KubeConfig,
  type KubeConfigSources,
  type LoadedKubeConfig,
  type NamedAuthInfo,
  type NamedCluster,
  type NamedContext,
} from './kubeconfig.js';
export { parseDuration, resolveRestConfig, type ConfigOverrides, type RestConfig } from './rest-config.js';
export {
  RestClient,
  parseWarningHeader,
  type RequestOptions,
  type RestClientOptions,
  type RestResponse,
  type WatchOptions,
} from './rest-client.js';
export { defaultMaxWatchEventBytes, type WatchEvent } from './watch-events.js';
export {
  DiscoveryClient,
  defaultCacheDir,
  discoveryCacheFolder,
  resourcePath,
  type ApiGroup,
  type ApiResource,
  type DiscoveryOptions,
} from './discovery.js';
export { buildResources, fileExtensions, type BuilderOptions, type ResourceInfo } from './resource-builder.js';
export { decodeObjects } from './object-stream.js';
export { goJson, goYaml, resourceName, stripManagedFields } from './object-printer.js';
export { readPatch, type PatchDocument } from './patch-document.js';
export { patchLocally } from './patch-locally.js';
export { aggregate, decodeUnstructuredValue, type KubeObject } from './unstructured.js';
export { JsonPath, type JsonPathOptions } from './jsonpath.js';
export { GoTemplate, goValue, type GoTemplateOptions } from './go-template.js';
export { allowedFormats, createPrinter, isKnownFormat, type PrintFlags, type ResourcePrinter } from './printer.js';
