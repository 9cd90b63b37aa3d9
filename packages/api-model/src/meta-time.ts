/**
 * A time as metav1.Time writes it on the wire and kubectl prints it: RFC 3339 in UTC with whole
 * seconds (`2026-01-10T09:00:00Z`); milliseconds are dropped, not rounded, as Go's Truncate does.
 */
export function formatMetaTime(time: Date | number): string {
  const ms = typeof time === 'number' ? time : time.getTime();
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
