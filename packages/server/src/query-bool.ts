/**
 * A boolean query parameter as Kubernetes' parameter codec converts it
 * (runtime.Convert_Slice_string_To_bool): absent is undefined, `0` and `false` (any case) are false,
 * and every other value, the empty one included, is true. It never fails: `watch=maybe` is a watch.
 */
export function parseQueryBool(value: string | null): boolean | undefined {
  if (value === null) return undefined;
  return !(value === '0' || value.toLowerCase() === 'false');
}
