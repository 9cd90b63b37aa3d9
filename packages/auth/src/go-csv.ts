/**
 * A CSV reader with the behaviour and error texts of Go's encoding/csv Reader (comma ',', no
 * comment character, strict quotes, variable field counts), because Kubernetes reads
 * `--token-auth-file` with it and operators expect the same acceptance and messages.
 * Blank lines are skipped; `\r\n` counts as `\n`.
 */
export class CsvParseError extends Error {
  readonly code = 'ERR_CSV_PARSE';
  readonly startLine: number;
  readonly line: number;
  readonly column: number;
  constructor(startLine: number, line: number, column: number, reason: string) {
    super(
      startLine !== line
        ? `record on line ${startLine}; parse error on line ${line}, column ${column}: ${reason}`
        : `parse error on line ${line}, column ${column}: ${reason}`,
    );
    this.name = 'CsvParseError';
    this.startLine = startLine;
    this.line = line;
    this.column = column;
  }
}

const errBareQuote = 'bare " in non-quoted-field';
const errQuote = 'extraneous or missing " in quoted-field';

/** Lines of the input as Go's readLine returns them: '\r\n' becomes '\n'; the last line may lack '\n'. */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    let line = nl < 0 ? text.slice(at) : text.slice(at, nl + 1);
    at = nl < 0 ? text.length : nl + 1;
    if (line.endsWith('\r\n')) line = line.slice(0, -2) + '\n';
    else if (nl < 0 && line.endsWith('\r')) line = line.slice(0, -1); // Go drops a trailing \r before EOF
    lines.push(line);
  }
  return lines;
}

function lengthNL(s: string): number {
  return s.endsWith('\n') ? 1 : 0;
}

/** Column numbers are 1-based byte offsets, as Go counts them. */
function byteLen(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export function parseGoCsv(text: string): string[][] {
  const lines = splitLines(text);
  const records: string[][] = [];
  let index = 0;
  while (index < lines.length) {
    let line = lines[index++];
    if (line.length === lengthNL(line)) continue; // empty lines are skipped
    const recLine = index;
    let lineNo = index;
    let col = 1;
    const fields: string[] = [];
    parseField: for (;;) {
      if (line.length === 0 || line[0] !== '"') {
        const comma = line.indexOf(',');
        const field = comma >= 0 ? line.slice(0, comma) : line.slice(0, line.length - lengthNL(line));
        const quote = field.indexOf('"');
        if (quote >= 0) throw new CsvParseError(recLine, lineNo, col + byteLen(field.slice(0, quote)), errBareQuote);
        fields.push(field);
        if (comma < 0) break;
        col += byteLen(field) + 1;
        line = line.slice(comma + 1);
        continue;
      }
      // Quoted field: `""` is a quote, `",` ends the field, `"` at end of line ends the record.
      line = line.slice(1);
      col += 1;
      let value = '';
      for (;;) {
        const q = line.indexOf('"');
        if (q >= 0) {
          value += line.slice(0, q);
          col += byteLen(line.slice(0, q)) + 1;
          line = line.slice(q + 1);
          if (line[0] === '"') {
            value += '"';
            line = line.slice(1);
            col += 1;
          } else if (line[0] === ',') {
            line = line.slice(1);
            col += 1;
            fields.push(value);
            continue parseField;
          } else if (lengthNL(line) === line.length) {
            fields.push(value);
            break parseField;
          } else {
            throw new CsvParseError(recLine, lineNo, col - 1, errQuote);
          }
        } else if (line.length > 0) {
          // The field continues on the next line.
          value += line;
          col += byteLen(line);
          line = index < lines.length ? lines[index++] : '';
          if (line.length > 0) {
            lineNo = index;
            col = 1;
          }
        } else {
          // End of input inside a quoted field.
          throw new CsvParseError(recLine, lineNo, col, errQuote);
        }
      }
    }
    records.push(fields);
  }
  return records;
}
