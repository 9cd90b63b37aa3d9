import { trustAnchorValidity, type TrustAnchor } from '@plat/x509';

/**
 * What an operator should notice about an anchor at `now`, in the words `clientctl trust inspect`
 * prints: `expired`, `not yet valid`, `not self-signed` (an intermediate used as an anchor) and
 * `not a CA` (only in files: stored bundles hold CA certificates only).
 */
export function trustAnchorNotes(anchor: TrustAnchor, now: Date | number = Date.now()): string[] {
  const notes: string[] = [];
  const validity = trustAnchorValidity(anchor, { now });
  if (validity === 'expired') notes.push('expired');
  if (validity === 'not-yet-valid') notes.push('not yet valid');
  if (!anchor.selfSigned) notes.push('not self-signed');
  if (!anchor.ca) notes.push('not a CA');
  return notes;
}

/** The anchors whose notAfter falls within `withinMs` of `now` (those already expired included), earliest first. */
export function anchorsExpiringWithin(anchors: readonly TrustAnchor[], withinMs: number, now: Date | number = Date.now()): TrustAnchor[] {
  const at = typeof now === 'number' ? now : now.getTime();
  return anchors.filter((a) => a.notAfter.getTime() - at <= withinMs).sort((a, b) => a.notAfter.getTime() - b.notAfter.getTime());
}
