import type { FlagSpec } from './flags.js';

/** The inherited flags of every command (spec section 4.2 and 5). */
export const globalFlags: FlagSpec[] = [
  { name: 'as', type: 'string', usage: 'Username to impersonate for the operation. User could be a regular user or a service account in a namespace.' },
  { name: 'as-group', type: 'stringArray', usage: 'Group to impersonate for the operation, this flag can be repeated to specify multiple groups.' },
  { name: 'as-uid', type: 'string', usage: 'UID to impersonate for the operation.' },
  { name: 'cache-dir', type: 'string', default: '$HOME/.plat/cache', usage: 'Default cache directory' },
  { name: 'certificate-authority', type: 'string', usage: 'Path to a cert file for the certificate authority' },
  { name: 'client-certificate', type: 'string', usage: 'Path to a client certificate file for TLS' },
  { name: 'client-key', type: 'string', usage: 'Path to a client key file for TLS' },
  { name: 'client-certificate-data', type: 'string', usage: 'PEM client certificate for TLS (instead of a file)', hidden: true },
  { name: 'client-key-data', type: 'string', usage: 'PEM client key for TLS (instead of a file)', hidden: true },
  { name: 'cluster', type: 'string', usage: 'The name of the kubeconfig cluster to use' },
  { name: 'context', type: 'string', usage: 'The name of the kubeconfig context to use' },
  { name: 'default-not-ready-toleration-seconds', type: 'int', default: 300, usage: 'Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration.' },
  { name: 'default-unreachable-toleration-seconds', type: 'int', default: 300, usage: 'Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration.' },
  { name: 'disable-compression', type: 'bool', usage: 'If true, opt-out of response compression for all requests to the server' },
  { name: 'insecure-skip-tls-verify', type: 'bool', usage: "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure" },
  { name: 'kubeconfig', type: 'string', usage: 'Path to the kubeconfig file to use for CLI requests.' },
  { name: 'log-flush-frequency', type: 'duration', default: '5s', usage: 'Maximum number of seconds between log flushes', hidden: true },
  { name: 'match-server-version', type: 'bool', usage: 'Require server version to match client version' },
  { name: 'namespace', short: 'n', type: 'string', usage: 'If present, the namespace scope for this CLI request' },
  { name: 'password', type: 'string', usage: 'Password for basic authentication to the API server' },
  { name: 'profile', type: 'string', default: 'none', usage: 'Name of profile to capture. One of (none|cpu|heap|goroutine|threadcreate|block|mutex)' },
  { name: 'profile-output', type: 'string', default: 'profile.pprof', usage: 'Name of the file to write the profile to' },
  { name: 'request-timeout', type: 'string', default: '0', usage: 'The length of time to wait before giving up on a single server request. Non-zero values should contain a corresponding time unit (e.g. 1s, 2m, 3h). A value of zero means don\'t timeout requests.' },
  { name: 'server', short: 's', type: 'string', usage: 'The address and port of the Kubernetes API server' },
  { name: 'storage-driver-buffer-duration', type: 'duration', default: '1m0s', usage: 'Writes in the storage driver will be buffered for this duration, and committed to the non memory backends as a single transaction' },
  { name: 'storage-driver-db', type: 'string', default: 'cadvisor', usage: 'database name' },
  { name: 'storage-driver-host', type: 'string', default: 'localhost:8086', usage: 'database host:port' },
  { name: 'storage-driver-password', type: 'string', default: 'root', usage: 'database password' },
  { name: 'storage-driver-secure', type: 'bool', usage: 'use secure connection with database' },
  { name: 'storage-driver-table', type: 'string', default: 'stats', usage: 'table name' },
  { name: 'storage-driver-user', type: 'string', default: 'root', usage: 'database username' },
  { name: 'tls-server-name', type: 'string', usage: 'Server name to use for server certificate validation. If it is not provided, the hostname used to contact the server is used' },
  { name: 'token', type: 'string', usage: 'Bearer token for authentication to the API server' },
  { name: 'user', type: 'string', usage: 'The name of the kubeconfig user to use' },
  { name: 'username', type: 'string', usage: 'Username for basic authentication to the API server' },
  { name: 'v', short: 'v', type: 'string', default: '0', usage: 'number for the log level verbosity' },
  { name: 'vmodule', type: 'string', usage: 'comma-separated list of pattern=N settings for file-filtered logging (only works for the default text log format)', hidden: true },
  { name: 'version', type: 'string', bareValue: 'true', default: 'false', usage: "--version, --version=raw prints version information and quits; --version=vX.Y.Z... sets the reported version" },
  { name: 'warnings-as-errors', type: 'bool', usage: 'Treat warnings received from the server as errors and exit with a non-zero exit code' },
];

/** `-o`, `--template` and friends shared by commands that print objects. */
export const printFlags: FlagSpec[] = [
  { name: 'allow-missing-template-keys', type: 'bool', default: true, usage: 'If true, ignore any errors in templates when a field or map key is missing in the template. Only applies to golang and jsonpath output formats.' },
  { name: 'output', short: 'o', type: 'string', usage: 'Output format. One of: (json, yaml, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file).' },
  { name: 'show-managed-fields', type: 'bool', usage: 'If true, keep the managedFields when printing objects in JSON or YAML format.' },
  { name: 'template', type: 'string', usage: 'Template string or path to template file to use when -o=go-template, -o=go-template-file. The template format is golang templates [http://golang.org/pkg/text/template/#pkg-overview].' },
];

export const fileFlags = (verb: string): FlagSpec[] => [
  { name: 'filename', short: 'f', type: 'stringSlice', usage: `Filename, directory, or URL to files identifying the resource to ${verb}` },
  { name: 'kustomize', short: 'k', type: 'string', usage: `Process the kustomization directory. This flag can't be used together with -f or -R.` },
  { name: 'recursive', short: 'R', type: 'bool', usage: 'Process the directory used in -f, --filename recursively. Useful when you want to manage related manifests organized within the same directory.' },
];

export const dryRunFlag: FlagSpec = {
  name: 'dry-run',
  type: 'string',
  default: 'none',
  bareValue: 'unchanged',
  usage: 'Must be "none", "server", or "client". If client strategy, only print the object that would be sent, without sending it. If server strategy, submit server-side request without persisting the resource.',
};

export const fieldManagerFlag = (name: string): FlagSpec => ({
  name: 'field-manager',
  type: 'string',
  default: name,
  usage: 'Name of the manager used to track field ownership.',
});
