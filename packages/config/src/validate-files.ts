/**
 * `apiserver validate`: load every named configuration file with the same loaders the server uses
 * and report per file. Nothing here touches the network.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FieldError } from '@plat/api-model';
import { loadAuditPolicy } from './audit-policy.js';
import { loadAuthenticationConfiguration } from './authentication.js';
import { loadAuthorizationConfiguration, type AuthorizationLoadOptions } from './authorization.js';
import { fileError, type ConfigKind, type LoadResult } from './document.js';
import { maxConfigFileBytes } from './decode.js';
import { loadEgressSelectorConfiguration } from './egress-selector.js';
import { loadTracingConfiguration } from './tracing.js';

export interface ConfigFiles {
  authenticationConfig?: string;
  authorizationConfig?: string;
  egressSelectorConfigFile?: string;
  tracingConfigFile?: string;
  auditPolicyFile?: string;
}

export interface ValidateConfigFilesOptions {
  /** Directory relative paths resolve against (file names and egress TLS files). */
  cwd: string;
  authorization?: AuthorizationLoadOptions;
}

export interface ConfigFileResult {
  /** The flag that named the file, e.g. `--authorization-config`. */
  flag: string;
  kind: ConfigKind;
  /** The path as given. */
  file: string;
  /** The path resolved against cwd. */
  path: string;
  ok: boolean;
  errors: FieldError[];
  warnings: string[];
}

const entries: { key: keyof ConfigFiles; flag: string; kind: ConfigKind }[] = [
  { key: 'authenticationConfig', flag: '--authentication-config', kind: 'AuthenticationConfiguration' },
  { key: 'authorizationConfig', flag: '--authorization-config', kind: 'AuthorizationConfiguration' },
  { key: 'egressSelectorConfigFile', flag: '--egress-selector-config-file', kind: 'EgressSelectorConfiguration' },
  { key: 'tracingConfigFile', flag: '--tracing-config-file', kind: 'TracingConfiguration' },
  { key: 'auditPolicyFile', flag: '--audit-policy-file', kind: 'Policy' },
];

function readError(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'ENOENT'
      ? 'no such file or directory'
      : code === 'EACCES'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'is a directory'
          : (error as Error).message;
  return `open ${file}: ${reason}`;
}

/** Loads each named file; results come back in flag order, one per named file. */
export async function validateConfigFiles(files: ConfigFiles, options: ValidateConfigFilesOptions): Promise<ConfigFileResult[]> {
  const results: ConfigFileResult[] = [];
  for (const entry of entries) {
    const file = files[entry.key];
    if (file === undefined || file === '') continue;
    const path = resolve(options.cwd, file);
    const base = { flag: entry.flag, kind: entry.kind, file, path };
    let data: Buffer;
    try {
      data = await readFile(path);
    } catch (error) {
      results.push({ ...base, ok: false, errors: [fileError(readError(file, error))], warnings: [] });
      continue;
    }
    if (data.byteLength > maxConfigFileBytes) {
      results.push({ ...base, ok: false, errors: [fileError(`file is too large: more than ${maxConfigFileBytes} bytes`)], warnings: [] });
      continue;
    }
    let result: LoadResult<unknown>;
    switch (entry.kind) {
      case 'AuthenticationConfiguration':
        result = loadAuthenticationConfiguration(data);
        break;
      case 'AuthorizationConfiguration':
        result = loadAuthorizationConfiguration(data, options.authorization);
        break;
      case 'EgressSelectorConfiguration':
        result = loadEgressSelectorConfiguration(data, { cwd: options.cwd });
        break;
      case 'TracingConfiguration':
        result = loadTracingConfiguration(data);
        break;
      case 'Policy':
        result = loadAuditPolicy(data);
        break;
    }
    results.push({ ...base, ok: result.ok, errors: result.ok ? [] : result.errors, warnings: result.warnings });
  }
  return results;
}

export interface ValidationReport {
  exitCode: 0 | 1;
  /** One line per valid file. */
  stdout: string[];
  /** `Warning: ...` lines and one `<field.path>: <Error type>: <detail>` line per error. */
  stderr: string[];
}

/**
 * Formats results for the terminal. Paths are relative to each file's root object; with several
 * files every line is prefixed by the file name.
 */
export function formatValidationReport(results: readonly ConfigFileResult[]): ValidationReport {
  const prefixed = results.length > 1;
  const stdout: string[] = [];
  const stderr: string[] = [];
  for (const r of results) {
    const prefix = prefixed ? `${r.file}: ` : '';
    for (const w of r.warnings) stderr.push(`Warning: ${prefix}${w}`);
    for (const e of r.errors) stderr.push(`${prefix}${e.toString()}`);
    if (r.ok) stdout.push(`${r.file}: valid ${r.kind}`);
  }
  return { exitCode: results.every((r) => r.ok) ? 0 : 1, stdout, stderr };
}
