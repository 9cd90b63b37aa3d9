/**
 * JSON.stringify that also writes the bigint integers {@link decodeJson} gives for values beyond
 * ±(2^53-1), as plain JSON numbers. Values without a bigint take the native path unchanged (the
 * common case, at no cost); only a TypeError about a BigInt turns to the slower writer below.
 */
export function encodeJson(value: unknown, indent = 0): string {
  try {
    return indent ? JSON.stringify(value, null, indent) : JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError) || !err.message.includes('BigInt')) throw err;
    return writeValue(value, indent ? ' '.repeat(indent) : '', '', 0) ?? 'null';
  }
}

/** Deeper than any decoded value can be (decoders stop at maxNestingDepth); guards against cycles. */
const maxEncodeDepth = 4096;

function writeValue(input: unknown, step: string, indent: string, depth: number): string | undefined {
  if (depth > maxEncodeDepth) throw new RangeError('encodeJson: value nested too deeply');
  let value = input;
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      return undefined; // undefined, functions and symbols, as JSON.stringify skips them
  }
  if (value === null) return 'null';
  const inner = indent + step;
  const open = step ? `\n${inner}` : '';
  const close = step ? `\n${indent}` : '';
  const sep = step ? `,\n${inner}` : ',';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const parts = value.map((v) => writeValue(v, step, inner, depth + 1) ?? 'null');
    return `[${open}${parts.join(sep)}${close}]`;
  }
  const parts: string[] = [];
  for (const key of Object.keys(value)) {
    const v = writeValue((value as Record<string, unknown>)[key], step, inner, depth + 1);
    if (v !== undefined) parts.push(`${JSON.stringify(key)}:${step ? ' ' : ''}${v}`);
  }
  if (parts.length === 0) return '{}';
  return `{${open}${parts.join(sep)}${close}}`;
}
