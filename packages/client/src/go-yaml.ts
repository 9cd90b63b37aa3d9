import { YamlDecodeError, decodeYamlDocuments } from '@plat/api-model/yaml';

/** One YAML document converted to a JSON value, or go-yaml's error (`yaml: line 2: ...`). */
export type YamlConversion = { readonly value: unknown; readonly error?: undefined } | { readonly error: string };

/**
 * Converts the first document of a YAML text as sigs.k8s.io/yaml's YAMLToJSON does. go-yaml's
 * own rules come first where the YAML library is more lenient: control characters anywhere are
 * refused, and a text of blanks and comments is `null` unless a tab stands where a token could
 * start (`found character that cannot start any token`, the line named from the second on).
 */
export function convertYaml(text: string): YamlConversion {
  if (hasControlCharacter(text)) return { error: 'yaml: control characters are not allowed' };
  const blank = blankYaml(text);
  if (blank) return blank;
  // The shared decoder: nesting and aliases bounded, integers within int64 exact (bigint past
  // 2^53) and float64 beyond, as go-yaml into interface{} and then JSON give them.
  try {
    return { value: decodeYamlDocuments(text, { goYaml: true })[0]?.value ?? null };
  } catch (err) {
    if (!(err instanceof YamlDecodeError)) throw err;
    return { error: err.message };
  }
}

/** go-yaml's reader accepts tab, line breaks and the printable ranges of YAML 1.1, nothing else. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) continue;
    if (c === 0x09 || c === 0x0a || c === 0x0d || c === 0x85) continue;
    if (c >= 0xa0 && c <= 0xfffd) continue;
    return true;
  }
  return false;
}

/**
 * A text of spaces, tabs, line breaks and comments (a leading BOM allowed): go-yaml scans it for
 * a token and finds none, so the value is null; a tab outside a comment stops the scanner, as
 * a tab cannot start a token where a simple key may start (every line start, in block context).
 */
function blankYaml(text: string): YamlConversion | undefined {
  const body = text.startsWith('\ufeff') ? text.slice(1) : text;
  if (!/^(?:[ \t\r\n]|#[^\r\n]*)*$/.test(body)) return undefined;
  let line = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '#') {
      while (i + 1 < body.length && body[i + 1] !== '\n' && body[i + 1] !== '\r') i++;
    } else if (c === '\r') {
      if (body[i + 1] === '\n') i++;
      line++;
    } else if (c === '\n') line++;
    else if (c === '\t') {
      // go-yaml names the line only when it is not the first (its marks count from 0).
      return { error: `yaml: ${line > 0 ? `line ${line + 1}: ` : ''}found character that cannot start any token` };
    }
  }
  return { value: null };
}
