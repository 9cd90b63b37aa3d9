/**
 * A strict PEM reader that finds exactly the blocks Go's encoding/pem Decode finds (the parser
 * Kubernetes validates trust bundles with) and, unlike Go, also reports every block that looks
 * like PEM but does not decode, instead of silently skipping it.
 *
 * Data outside blocks (comments, blank lines, text between blocks) is skipped, as Go does.
 */

export interface PemBlock {
  /** Position among the entries of the input, malformed entries included. */
  readonly index: number;
  /** The type from the BEGIN line, e.g. "CERTIFICATE". */
  readonly type: string;
  /** RFC 1421 headers ("Key: Value" lines after BEGIN); empty for well-formed certificates. */
  readonly headers: ReadonlyMap<string, string>;
  /** The base64-decoded contents. */
  readonly bytes: Uint8Array;
}

export type PemMalformedReason =
  | 'invalid base64 data'
  | 'BEGIN line does not end with "-----"'
  | 'no END line'
  | 'END line does not match the BEGIN line';

/** A line starting with "-----BEGIN " that does not form a decodable block. */
export interface PemMalformedEntry {
  readonly index: number;
  /** The type as far as it could be read from the BEGIN line. */
  readonly type: string;
  readonly reason: PemMalformedReason;
  /** Character offset of the BEGIN line in the input. */
  readonly offset: number;
}

export type PemEntry = ({ readonly kind: 'block' } & PemBlock) | ({ readonly kind: 'malformed' } & PemMalformedEntry);

const beginMarker = '-----BEGIN ';
const endMarker = '\n-----END ';
const dashes = '-----';

interface Line {
  readonly text: string;
  /** Offset just after the line terminator. */
  readonly next: number;
}

/** One "\n" or "\r\n" terminated line from `start`, trailing spaces and tabs removed (as Go's getLine). */
function lineAt(input: string, start: number, limit = input.length): Line {
  let nl = input.indexOf('\n', start);
  if (nl < 0 || nl >= limit) nl = -1;
  let end: number;
  let next: number;
  if (nl < 0) {
    end = limit;
    next = limit;
  } else {
    next = nl + 1;
    end = nl > start && input.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
  }
  while (end > start) {
    const c = input.charCodeAt(end - 1);
    if (c !== 32 && c !== 9) break;
    end--;
  }
  return { text: input.slice(start, end), next };
}

/** Characters a PEM body may hold: the base64 alphabet, padding and the whitespace Go removes. */
const base64Run = /[A-Za-z0-9+/= \t\r\n]*/y;

const base64Value = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) {
  base64Value['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;
}

/** Base64 alphabet and LF line breaks, at most two padding characters at the very end: decoded without copying. */
const plainBody = /^[A-Za-z0-9+/\n]*(?:==?\n?)?$/;

/**
 * Decodes padded standard base64 the way Go's base64.StdEncoding does inside PEM: spaces, tabs,
 * CR and LF are ignored; padding is required; nothing may follow the padding. Returns undefined
 * for malformed data.
 */
export function decodePemBase64(text: string): Uint8Array | undefined {
  if (plainBody.test(text)) {
    // The usual body (what encoders write): Buffer's decoder skips the line feeds itself.
    let newlines = 0;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) newlines++;
    if ((text.length - newlines) % 4 !== 0) return undefined;
    const bytes = Buffer.from(text, 'base64');
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  let clean = '';
  let needsCopy = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13 || c === 32 || c === 9) {
      needsCopy = true;
      break;
    }
  }
  if (needsCopy) {
    const parts: string[] = [];
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13 || c === 32 || c === 9) {
        if (i > from) parts.push(text.slice(from, i));
        from = i + 1;
      }
    }
    if (from < text.length) parts.push(text.slice(from));
    clean = parts.join('');
  } else {
    clean = text;
  }
  if (clean.length % 4 !== 0) return undefined;
  let pad = 0;
  for (let i = 0; i < clean.length; i++) {
    const c = clean.charCodeAt(i);
    if (c === 61 /* = */) {
      pad++;
      continue;
    }
    if (pad > 0 || c >= 128 || base64Value[c] < 0) return undefined;
  }
  if (pad > 2) return undefined;
  // A padding character may only sit in the last two positions, and "=X" is excluded above.
  if (pad > 0 && clean.indexOf('=') !== clean.length - pad) return undefined;
  const bytes = Buffer.from(clean, 'base64');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Reads every PEM entry of `input` in order. Never throws: any string gives a list (possibly
 * empty) of decoded blocks and malformed entries.
 */
export function readPemEntries(input: string): PemEntry[] {
  const entries: PemEntry[] = [];
  let pos = 0;
  // The next END line at or after `endSearchedFrom` (-1: none). Every BEGIN looks for the first
  // END after it; remembering the last answer keeps thousands of BEGIN lines without an END from
  // each scanning the rest of the input again (quadratic), while finding the same END Go finds.
  let endSearchedFrom = -1;
  let endFound = -1;
  const nextEnd = (from: number): number => {
    if (endSearchedFrom < 0 || from < endSearchedFrom || (endFound >= 0 && endFound < from)) {
      endSearchedFrom = from;
      endFound = input.indexOf(endMarker, from);
    }
    return endFound;
  };
  for (;;) {
    // Go accepts a BEGIN line at the very start of the input or after a newline.
    let beginAt: number;
    if (input.startsWith(beginMarker, pos) && (pos === 0 || input.charCodeAt(pos - 1) === 10)) {
      beginAt = pos;
    } else {
      const found = input.indexOf('\n' + beginMarker, pos);
      if (found < 0) return entries;
      beginAt = found + 1;
    }
    const index = entries.length;
    const typeLine = lineAt(input, beginAt + beginMarker.length);
    pos = typeLine.next;
    if (!typeLine.text.endsWith(dashes)) {
      entries.push({ kind: 'malformed', index, type: typeLine.text, reason: 'BEGIN line does not end with "-----"', offset: beginAt });
      continue;
    }
    const type = typeLine.text.slice(0, typeLine.text.length - dashes.length);
    const headers = new Map<string, string>();
    let truncated = false;
    for (;;) {
      if (pos >= input.length) {
        truncated = true;
        break;
      }
      const line = lineAt(input, pos);
      const colon = line.text.indexOf(':');
      if (colon < 0) break;
      headers.set(line.text.slice(0, colon).trim(), line.text.slice(colon + 1).trim());
      pos = line.next;
    }
    if (truncated) {
      // Go stops decoding altogether here: nothing after this point is a block.
      entries.push({ kind: 'malformed', index, type, reason: 'no END line', offset: beginAt });
      return entries;
    }
    let endIndex: number;
    let trailerAt: number;
    if (headers.size === 0 && input.startsWith(endMarker.slice(1), pos)) {
      endIndex = pos;
      trailerAt = pos + endMarker.length - 1;
    } else {
      endIndex = nextEnd(pos);
      trailerAt = endIndex + endMarker.length;
    }
    if (endIndex < 0) {
      entries.push({ kind: 'malformed', index, type, reason: 'no END line', offset: beginAt });
      continue;
    }
    const trailerLength = type.length + dashes.length;
    if (
      input.length - trailerAt < trailerLength ||
      !input.startsWith(type, trailerAt) ||
      !input.startsWith(dashes, trailerAt + type.length) ||
      lineAt(input, trailerAt + trailerLength).text.length !== 0
    ) {
      entries.push({ kind: 'malformed', index, type, reason: 'END line does not match the BEGIN line', offset: beginAt });
      continue;
    }
    // A body holding a character base64 never has (the next BEGIN line, say) is refused at that
    // character, without copying the body: else thousands of BEGIN lines sharing one distant END
    // would each copy and scan the rest of the input.
    base64Run.lastIndex = pos;
    base64Run.test(input);
    const bytes = base64Run.lastIndex < endIndex ? undefined : decodePemBase64(input.slice(pos, endIndex));
    if (bytes === undefined) {
      entries.push({ kind: 'malformed', index, type, reason: 'invalid base64 data', offset: beginAt });
      continue;
    }
    entries.push({ kind: 'block', index, type, headers, bytes });
    pos = lineAt(input, endIndex + endMarker.length - 1).next;
  }
}

/** Encodes bytes as a PEM block with 64-character lines, the way Go's pem.Encode does. */
export function encodePem(type: string, bytes: Uint8Array): string {
  const b64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let body = '';
  for (let i = 0; i < b64.length; i += 64) body += b64.slice(i, i + 64) + '\n';
  return `-----BEGIN ${type}-----\n${body}-----END ${type}-----\n`;
}
