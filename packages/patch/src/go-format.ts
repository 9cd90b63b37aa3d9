/**
 * Go's `%v` rendering of decoded JSON values (`map[a:1 b:[x y]]`, `<nil>`, `1e+06`), so that
 * error texts that embed a patch fragment read exactly as Kubernetes' do.
 */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    return `map[${keys.map((k) => `${k}:${goValue(o[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** Go's `%v` (shortest `%g`) for a float64: exponent form when the exponent is < -4 or >= 6. */
export function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, expText] = n.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(n);
}

/** Go's `%T` of a decoded JSON value, as reflect.TypeOf prints it. */
export function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'bigint') return 'int64'; // an int64 past 2^53, as the decoders give it
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}
