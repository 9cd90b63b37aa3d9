/**
 * `apiserver validate`: checks configuration files with the loaders the server uses at start-up
 * and on reload (@plat/config), prints `Warning: ...` lines and one line per error, and returns
 * the exit code. It never contacts the network.
 */
import { formatValidationReport, validateConfigFiles, type AuthorizationLoadOptions, type ConfigFiles } from '@plat/config';
import type { Argv, CommandModule } from 'yargs';
import { supportedAuthorizerTypes } from '@plat/control-plane';

export interface ValidateArgs {
  authenticationConfig?: string;
  authorizationConfig?: string;
  egressSelectorConfigFile?: string;
  tracingConfigFile?: string;
  auditPolicyFile?: string;
}

export interface ValidateIO {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  /** Relative paths (the files and the egress TLS files inside them) resolve against this. */
  cwd: string;
}

export interface ValidateOptions {
  /** Authorizer types the server supports (defaults to the ones the apiserver builds). */
  authorization?: AuthorizationLoadOptions;
}

const flags = {
  'authentication-config': 'File with an AuthenticationConfiguration (apiserver.plat.io/v1beta1) to validate.',
  'authorization-config': 'File with an AuthorizationConfiguration (apiserver.plat.io/v1beta1) to validate.',
  'egress-selector-config-file': 'File with an EgressSelectorConfiguration (apiserver.plat.io/v1beta1) to validate.',
  'tracing-config-file': 'File with a TracingConfiguration (apiserver.plat.io/v1beta1) to validate.',
  'audit-policy-file': 'File with an audit Policy (audit.plat.io/v1 or audit.k8s.io/v1) to validate.',
} as const;

/** Validates the named files; resolves to the process exit code (0 valid, 1 otherwise). */
export async function runValidate(argv: ValidateArgs, io: ValidateIO, options: ValidateOptions = {}): Promise<number> {
  const files: ConfigFiles = {
    authenticationConfig: argv.authenticationConfig,
    authorizationConfig: argv.authorizationConfig,
    egressSelectorConfigFile: argv.egressSelectorConfigFile,
    tracingConfigFile: argv.tracingConfigFile,
    auditPolicyFile: argv.auditPolicyFile,
  };
  if (Object.values(files).every((f) => f === undefined || f === '')) {
    io.stderr.write(
      'Error: name at least one file: --authentication-config, --authorization-config, --egress-selector-config-file, --tracing-config-file or --audit-policy-file\n',
    );
    return 1;
  }
  const results = await validateConfigFiles(files, { cwd: io.cwd, authorization: options.authorization ?? { supportedTypes: supportedAuthorizerTypes } });
  const report = formatValidationReport(results);
  for (const line of report.stderr) io.stderr.write(`${line}\n`);
  for (const line of report.stdout) io.stdout.write(`${line}\n`);
  return report.exitCode;
}

/** Declares the validate flags on a yargs instance (kebab-case, as kube-apiserver spells them). */
export function declareValidateFlags<T>(y: Argv<T>): Argv<T> {
  let out = y;
  for (const [name, describe] of Object.entries(flags)) out = out.option(name, { type: 'string', describe, requiresArg: true });
  return out.strict();
}

function stringFlag(argv: Record<string, unknown>, kebab: string, camel: string): string | undefined {
  const v = argv[kebab] ?? argv[camel];
  if (Array.isArray(v)) return v.length ? String(v[v.length - 1]) : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** Reads the parsed flags, whether or not yargs expanded them to camelCase. */
export function validateArgsFromArgv(argv: Record<string, unknown>): ValidateArgs {
  return {
    authenticationConfig: stringFlag(argv, 'authentication-config', 'authenticationConfig'),
    authorizationConfig: stringFlag(argv, 'authorization-config', 'authorizationConfig'),
    egressSelectorConfigFile: stringFlag(argv, 'egress-selector-config-file', 'egressSelectorConfigFile'),
    tracingConfigFile: stringFlag(argv, 'tracing-config-file', 'tracingConfigFile'),
    auditPolicyFile: stringFlag(argv, 'audit-policy-file', 'auditPolicyFile'),
  };
}

/**
 * The `validate` subcommand for main.ts: `cli.command(validateCommand())`. The handler sets
 * `process.exitCode`, so the process ends with 0 when every named file is valid, else 1.
 */
export function validateCommand(io?: Partial<ValidateIO>, options: ValidateOptions = {}): CommandModule {
  return {
    command: 'validate',
    describe: 'Validate configuration files (authentication, authorization, egress selector, tracing, audit policy) without starting the server',
    builder: (y) => declareValidateFlags(y),
    handler: async (argv) => {
      process.exitCode = await runValidate(
        validateArgsFromArgv(argv as Record<string, unknown>),
        { stdout: io?.stdout ?? process.stdout, stderr: io?.stderr ?? process.stderr, cwd: io?.cwd ?? process.cwd() },
        options,
      );
    },
  };
}
