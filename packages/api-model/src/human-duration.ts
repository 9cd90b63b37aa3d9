/**
 * Kubernetes' `duration.HumanDuration` (k8s.io/apimachinery/pkg/util/duration): a duration with
 * two or three significant figures, as kubectl and the server's tables print AGE (`119s`, `2m5s`,
 * `3h5m`, `3d4h`, `3y120d`). Up to a second in the future counts as now (`0s`); further is
 * `<invalid>`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}
