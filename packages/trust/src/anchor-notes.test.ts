import type { TrustAnchor } from '@plat/x509';
import { anchorsExpiringWithin, trustAnchorNotes } from './anchor-notes.js';

const day = 86_400_000;
const now = Date.parse('2026-06-01T00:00:00Z');
const anchor = (over: Partial<TrustAnchor>): TrustAnchor => ({
  subject: 'CN=a',
  issuer: 'CN=a',
  sha256: 'aa',
  notBefore: new Date(now - 10 * day),
  notAfter: new Date(now + 100 * day),
  selfSigned: true,
  ca: true,
  ...over,
});

describe('trustAnchorNotes', () => {
  it('says nothing about a valid self-signed CA', () => {
    expect(trustAnchorNotes(anchor({}), now)).toEqual([]);
  });

  it('names expired, not yet valid, not self-signed and not a CA', () => {
    expect(trustAnchorNotes(anchor({ notAfter: new Date(now - 1) }), now)).toEqual(['expired']);
    expect(trustAnchorNotes(anchor({ notBefore: new Date(now + day) }), now)).toEqual(['not yet valid']);
    expect(trustAnchorNotes(anchor({ selfSigned: false, ca: false }), now)).toEqual(['not self-signed', 'not a CA']);
  });
});

describe('anchorsExpiringWithin', () => {
  it('picks the anchors expiring within the window, expired ones included, earliest first', () => {
    const soon = anchor({ sha256: 'soon', notAfter: new Date(now + 5 * day) });
    const gone = anchor({ sha256: 'gone', notAfter: new Date(now - day) });
    const later = anchor({ sha256: 'later', notAfter: new Date(now + 60 * day) });
    expect(anchorsExpiringWithin([later, soon, gone], 30 * day, now).map((a) => a.sha256)).toEqual(['gone', 'soon']);
    expect(anchorsExpiringWithin([later], 60 * day, now)).toHaveLength(1);
    expect(anchorsExpiringWithin([later], 60 * day - 1, now)).toHaveLength(0);
  });
});
