import { parseGoCsv } from './go-csv.js';
import type { UserInfo } from './interface.js';

/** A `--token-auth-file` that cannot be used; the message is Kubernetes' where it has one. */
export class TokenFileError extends Error {
  readonly code = 'ERR_TOKEN_FILE';
  constructor(message: string) {
    super(message);
    this.name = 'TokenFileError';
  }
}

export interface TokenFileWarning {
  record: number;
  message: string;
}

export interface ParsedTokenFile {
  tokens: Map<string, UserInfo>;
  /** Records Kubernetes accepts with a warning (empty or duplicate tokens). */
  warnings: TokenFileWarning[];
}

/**
 * Parses a static token file in Kubernetes' CSV format: `token,user,uid[,"group1,group2"]`, one
 * record per line, CSV quoting as Go's encoding/csv. Records with fewer than three columns fail
 * the whole file; an empty token is skipped and a duplicate token replaces the earlier one, both
 * with a warning. `path` only names the file in messages.
 */
export function parseTokenFile(content: string, path: string): ParsedTokenFile {
  let records: string[][];
  try {
    records = parseGoCsv(content);
  } catch (err) {
    throw new TokenFileError((err as Error).message);
  }
  const tokens = new Map<string, UserInfo>();
  const warnings: TokenFileWarning[] = [];
  let recordNum = 0;
  for (const record of records) {
    if (record.length < 3) {
      throw new TokenFileError(
        `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`,
      );
    }
    recordNum++;
    const [token, username, uid] = record;
    if (token === '') {
      warnings.push({ record: recordNum, message: `empty token has been found in token file '${path}', record number '${recordNum}'` });
      continue;
    }
    if (tokens.has(token)) {
      warnings.push({ record: recordNum, message: `duplicate token has been found in token file '${path}', record number '${recordNum}'` });
    }
    const user: UserInfo = { username, uid, groups: record.length >= 4 ? record[3].split(',') : [] };
    tokens.set(token, user);
  }
  return { tokens, warnings };
}
