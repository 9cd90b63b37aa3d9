import fs from 'node:fs/promises';
import path from 'node:path';
import {
  loadAuditPolicy,
  loadEgressSelectorConfiguration,
  loadTracingConfiguration,
  maxConfigFileBytes,
  type AuditPolicy,
  type EgressSelectorConfiguration,
  type LoadResult,
  type TracingConfiguration,
} from '@plat/config';
import type { Logger } from './logger.js';

/** A configuration file named by a flag that cannot be used; the message is what the operator reads. */
export class ConfigFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigFileError';
  }
}

/**
 * Reads the file a flag names and loads it with its @plat/config loader. Problems become one
 * ConfigFileError listing every field error (`field.path: Invalid value: ...`), as Kubernetes
 * refuses to start on an invalid file. Warnings go to `warn`.
 */
export async function loadConfigFile<T>(
  flag: string,
  file: string,
  cwd: string,
  load: (data: Buffer) => LoadResult<T>,
  warn: (message: string) => void,
): Promise<T> {
  const resolved = path.resolve(cwd, file);
  let data: Buffer;
  try {
    data = await fs.readFile(resolved);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (err as Error).message;
    throw new ConfigFileError(`${flag}: open ${file}: ${reason}`);
  }
  if (data.byteLength > maxConfigFileBytes) throw new ConfigFileError(`${flag}: ${file}: file is too large: more than ${maxConfigFileBytes} bytes`);
  const result = load(data);
  for (const w of result.warnings) warn(`${flag}: ${file}: ${w}`);
  if (!result.ok) {
    throw new ConfigFileError(`${flag}: invalid configuration in ${file}:\n${result.errors.map((e) => `  ${e.toString()}`).join('\n')}`);
  }
  return result.config;
}

/** Loads `--egress-selector-config-file` (relative TLS paths against `cwd`). Throws ConfigFileError. */
export function loadEgressConfigFile(file: string, cwd: string, logger: Logger): Promise<EgressSelectorConfiguration> {
  return loadConfigFile(
    '--egress-selector-config-file',
    file,
    cwd,
    (data) => loadEgressSelectorConfiguration(data, { cwd }),
    (w) => logger.info(`Warning: ${w}`, {}, 0),
  );
}

/** Loads `--tracing-config-file` (an empty file is valid: defaults). Throws ConfigFileError. */
export function loadTracingConfigFile(file: string, cwd: string, logger: Logger): Promise<TracingConfiguration> {
  return loadConfigFile('--tracing-config-file', file, cwd, (data) => loadTracingConfiguration(data), (w) => logger.info(`Warning: ${w}`, {}, 0));
}

/** Loads `--audit-policy-file` (audit.plat.io/v1 or audit.k8s.io/v1). Throws ConfigFileError. */
export function loadAuditPolicyFile(file: string, cwd: string, logger: Logger): Promise<AuditPolicy> {
  return loadConfigFile('--audit-policy-file', file, cwd, (data) => loadAuditPolicy(data), (w) => logger.info(`Warning: ${w}`, {}, 0));
}
