/**
 * The values of a repeatable flag as yargs hands them over (one value, an array of them, or
 * nothing), each split at commas, as kube-apiserver's string-slice flags read.
 */
export function flagList(v: unknown): string[] {
  const all = (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
  return all.flatMap((s) => s.split(',')).filter((s) => s !== '');
}

/** The last value of a flag given several times (the last one wins, as with pflag). */
export function lastFlag(v: unknown): string | undefined {
  if (Array.isArray(v)) return v.length ? String(v[v.length - 1]) : undefined;
  return v === undefined ? undefined : String(v);
}
