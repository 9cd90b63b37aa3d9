import type { CommandContext } from './context.js';
import type { FlagSpec } from './flags.js';
import { dryRunFlag, fieldManagerFlag, fileFlags, printFlags } from './global-flags.js';
import { trustCommands } from './trust-commands.js';

/** One command: its flags are known up front, its code is loaded only when it runs. */
export interface CommandSpec {
  path: string;
  short: string;
  usage: string;
  examples?: string;
  flags: FlagSpec[];
  /** Commands that never talk to a server (for --match-server-version). */
  offline?: (ctx: CommandContext) => boolean;
  load: () => Promise<(ctx: CommandContext) => Promise<void>>;
}

const selectorFlags: FlagSpec[] = [
  { name: 'selector', short: 'l', type: 'string', usage: "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints." },
  { name: 'field-selector', type: 'string', usage: "Selector (field query) to filter on, supports '=', '==', and '!='.(e.g. --field-selector key1=value1,key2=value2). The server only supports a limited number of field queries per type." },
];

export const commands: CommandSpec[] = [
  {
    path: 'patch',
    short: 'Update fields of a resource',
    usage: 'clientctl patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE] [options]',
    examples: `  # Partially update a cluster trust bundle using a strategic merge patch, specifying the patch as YAML
  clientctl patch clustertrustbundle example.com:signer:a -p $'metadata:\\n  labels:\\n    team: a'

  # Update a deployment's replicas in a local file and print the result without contacting the server
  clientctl patch --local -f deployment.yaml -p '{"spec":{"replicas":3}}' -o json

  # Update a container's image using a JSON patch with positional arrays
  clientctl patch --local -f pod.yaml --type='json' -p='[{"op": "replace", "path": "/spec/containers/0/image", "value":"new image"}]'

  # Update a deployment's replicas through the scale subresource using a merge patch
  clientctl patch deployment nginx-deployment --subresource='scale' --type='merge' -p '{"spec":{"replicas":2}}'`,
    flags: [
      ...printFlags,
      dryRunFlag,
      fieldManagerFlag('clientctl-patch'),
      ...fileFlags('update'),
      { name: 'local', type: 'bool', usage: 'If true, patch will operate on the content of the file, not the server-side resource.' },
      { name: 'patch', short: 'p', type: 'string', usage: 'The patch to be applied to the resource JSON file.' },
      { name: 'patch-file', type: 'string', usage: 'A file containing a patch to be applied to the resource.' },
      { name: 'subresource', type: 'string', usage: 'If specified, patch will operate on the subresource of the requested object. This flag is beta and may change in the future.' },
      { name: 'type', type: 'string', default: 'strategic', usage: 'The type of patch being provided; one of [json merge strategic]' },
    ],
    offline: (ctx) => ctx.flags.bool('local'),
    load: async () => (await import('./commands/patch.js')).runPatch,
  },
  {
    path: 'get',
    short: 'Display one or many resources',
    usage: 'clientctl get [(-o|--output=)json|yaml|name|go-template|...] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags] [options]',
    flags: [
      ...printFlags,
      ...fileFlags('get from a server'),
      ...selectorFlags,
      { name: 'all-namespaces', short: 'A', type: 'bool', usage: 'If present, list the requested object(s) across all namespaces.' },
      { name: 'chunk-size', type: 'int', default: 500, usage: 'Return large lists in chunks rather than all at once. Pass 0 to disable.' },
      { name: 'ignore-not-found', type: 'bool', usage: 'If the requested object does not exist the command will return exit code 0.' },
      { name: 'no-headers', type: 'bool', usage: 'When using the default or custom-column output format, don\'t print headers (default print headers).' },
      { name: 'show-labels', type: 'bool', usage: 'When printing, show all labels as the last column (default hide labels column)' },
      { name: 'subresource', type: 'string', usage: 'If specified, gets the subresource of the requested object.' },
    ],
    load: async () => (await import('./commands/get.js')).runGet,
  },
  {
    path: 'create',
    short: 'Create a resource from a file or from stdin',
    usage: 'clientctl create -f FILENAME [options]',
    flags: [
      ...printFlags,
      dryRunFlag,
      fieldManagerFlag('clientctl-create'),
      ...fileFlags('use to create the resource'),
      { name: 'validate', type: 'string', default: 'strict', bareValue: 'strict', usage: 'Must be one of: strict (or true), warn, ignore (or false).' },
    ],
    offline: (ctx) => ctx.flags.str('dry-run') === 'client',
    load: async () => (await import('./commands/create.js')).runCreate,
  },
  {
    path: 'apply',
    short: 'Apply a configuration to a resource by file name or stdin',
    usage: 'clientctl apply (-f FILENAME | -k DIRECTORY) [options]',
    flags: [
      ...printFlags,
      dryRunFlag,
      fieldManagerFlag('clientctl-client-side-apply'),
      ...fileFlags('use to apply the resource'),
      { name: 'validate', type: 'string', default: 'strict', bareValue: 'strict', usage: 'Must be one of: strict (or true), warn, ignore (or false).' },
      { name: 'server-side', type: 'bool', usage: 'If true, apply runs in the server instead of the client.' },
      { name: 'force-conflicts', type: 'bool', usage: 'If true, server-side apply will force the changes against conflicts.' },
    ],
    load: async () => (await import('./commands/apply.js')).runApply,
  },
  {
    path: 'delete',
    short: 'Delete resources by file names, stdin, resources and names, or by resources and label selector',
    usage: 'clientctl delete ([-f FILENAME] | [-k DIRECTORY] | TYPE [(NAME | -l label | --all)]) [options]',
    flags: [
      { name: 'output', short: 'o', type: 'string', usage: 'Output mode. Use "-o name" for shorter output (resource/name).' },
      dryRunFlag,
      ...fileFlags('delete'),
      ...selectorFlags,
      { name: 'all', type: 'bool', usage: 'Delete all resources, in the namespace of the specified resource types.' },
      { name: 'ignore-not-found', type: 'bool', usage: 'Treat "resource not found" as a successful delete.' },
      { name: 'grace-period', type: 'int', default: -1, usage: 'Period of time in seconds given to the resource to terminate gracefully. Ignored if negative.' },
      { name: 'cascade', type: 'string', default: 'background', bareValue: 'background', usage: 'Must be "background", "orphan", or "foreground".' },
      { name: 'wait', type: 'bool', default: true, usage: 'If true, wait for resources to be gone before returning.' },
      { name: 'now', type: 'bool', usage: 'If true, resources are signaled for immediate shutdown (same as --grace-period=1).' },
      { name: 'force', type: 'bool', usage: 'If true, immediately remove resources from API and bypass graceful deletion.' },
    ],
    load: async () => (await import('./commands/delete.js')).runDelete,
  },
  {
    path: 'auth whoami',
    short: 'Experimental: Check self subject attributes',
    usage: 'clientctl auth whoami [options]',
    flags: [...printFlags],
    load: async () => (await import('./commands/auth.js')).runWhoami,
  },
  {
    path: 'auth can-i',
    short: 'Check whether an action is allowed',
    usage: 'clientctl auth can-i VERB [TYPE | TYPE/NAME | NONRESOURCEURL] [options]',
    flags: [
      { name: 'all-namespaces', short: 'A', type: 'bool', usage: 'If true, check the specified action in all namespaces.' },
      { name: 'quiet', short: 'q', type: 'bool', usage: 'If true, suppress output and just return the exit code.' },
      { name: 'subresource', type: 'string', usage: 'SubResource such as pod/log or deployment/scale' },
    ],
    load: async () => (await import('./commands/auth.js')).runCanI,
  },
  {
    path: 'api-resources',
    short: 'Print the supported API resources on the server',
    usage: 'clientctl api-resources [options]',
    flags: [
      { name: 'output', short: 'o', type: 'string', usage: 'Output format. One of: (wide, name).' },
      { name: 'api-group', type: 'string', usage: 'Limit to resources in the specified API group.' },
      { name: 'namespaced', type: 'bool', default: true, usage: 'If false, non-namespaced resources will be returned, otherwise returning namespaced resources by default.' },
      { name: 'no-headers', type: 'bool', usage: "When using the default or custom-column output format, don't print headers (default print headers)." },
      { name: 'verbs', type: 'stringSlice', usage: 'Limit to resources that support the specified verbs.' },
      { name: 'sort-by', type: 'string', usage: "If non-empty, sort list of resources using specified field. The field can be either 'name' or 'kind'." },
      { name: 'cached', type: 'bool', usage: 'Use the cached list of resources if available.' },
    ],
    load: async () => (await import('./commands/api-resources.js')).runApiResources,
  },
  {
    path: 'version',
    short: 'Print the client and server version information',
    usage: 'clientctl version [flags] [options]',
    flags: [
      { name: 'client', type: 'bool', usage: 'If true, shows client version only (no server required).' },
      { name: 'output', short: 'o', type: 'string', usage: "One of 'yaml' or 'json'." },
    ],
    offline: (ctx) => ctx.flags.bool('client'),
    load: async () => (await import('./commands/version.js')).runVersion,
  },
  {
    path: 'config view',
    short: 'Display merged kubeconfig settings or a specified kubeconfig file',
    usage: 'clientctl config view [flags] [options]',
    flags: [
      ...printFlags.map((f) => (f.name === 'output' ? { ...f, default: 'yaml' } : f)),
      { name: 'minify', type: 'bool', usage: 'Remove all information not used by current-context from the output' },
      { name: 'raw', type: 'bool', usage: 'Display raw byte data and sensitive data' },
      { name: 'flatten', type: 'bool', usage: 'Flatten the resulting kubeconfig file into self-contained output (useful for creating portable kubeconfig files)' },
    ],
    offline: () => true,
    load: async () => (await import('./commands/config.js')).runConfigView,
  },
  {
    path: 'config use-context',
    short: 'Set the current-context in a kubeconfig file',
    usage: 'clientctl config use-context CONTEXT_NAME [options]',
    flags: [],
    offline: () => true,
    load: async () => (await import('./commands/config.js')).runUseContext,
  },
  {
    path: 'config get-contexts',
    short: 'Describe one or many contexts',
    usage: 'clientctl config get-contexts [(-o|--output=)name)] [options]',
    flags: [
      { name: 'output', short: 'o', type: 'string', usage: 'Output format. One of: (name).' },
      { name: 'no-headers', type: 'bool', usage: "When using the default or custom-column output format, don't print headers (default print headers)." },
    ],
    offline: () => true,
    load: async () => (await import('./commands/config.js')).runGetContexts,
  },
  {
    path: 'completion',
    short: 'Output shell completion code for the specified shell (bash or zsh)',
    usage: 'clientctl completion SHELL [options]',
    flags: [],
    offline: () => true,
    load: async () => {
      const { runCompletion } = await import('./commands/completion.js');
      return (ctx) => runCompletion(ctx, { commands, commandGroups });
    },
  },
  ...trustCommands,
];

export const commandGroups: Record<string, string> = {
  auth: 'Inspect authorization',
  config: 'Modify kubeconfig files',
  trust: 'Inspect, resolve and sync trust anchors',
};
