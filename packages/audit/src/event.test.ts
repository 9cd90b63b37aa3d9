import fc from 'fast-check';
import { encodeEventLine, eventString, microTime, writeMicroDigits, writeMicroTime, type AuditEvent } from './event.js';

const event: AuditEvent = {
  kind: 'Event',
  apiVersion: 'audit.k8s.io/v1',
  level: 'Metadata',
  auditID: 'b0d5ed6a-1',
  stage: 'ResponseComplete',
  requestURI: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles',
  verb: 'list',
  user: { username: 'writer', groups: ['writers', 'system:authenticated'] },
  sourceIPs: ['10.0.0.1', '127.0.0.1'],
  userAgent: 'kubectl/v1.32.0',
  objectRef: { resource: 'clustertrustbundles', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' },
  responseStatus: { metadata: {}, code: 200 },
  requestReceivedTimestamp: '2026-01-02T03:04:05.120000Z',
  stageTimestamp: '2026-01-02T03:04:05.130000Z',
};

describe('audit events', () => {
  it('writes MicroTime with six fractional digits', () => {
    expect(microTime(Date.UTC(2026, 0, 2, 3, 4, 5) * 1000 + 7)).toBe('2026-01-02T03:04:05.000007Z');
    expect(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 999) * 1000 + 999)).toBe('2026-01-02T03:04:05.999999Z');
  });

  it("writes MicroTime's characters into a buffer from the microseconds (writeMicroTime), for times in any order, and nothing when they do not fit", () => {
    const buf = Buffer.alloc(64, 0x2a);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4_102_444_800_000_000 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 2_000_000 }), (times, step) => {
        for (const t of times.flatMap((t) => [t, t + step, t + 1])) {
          const end = writeMicroTime(t, buf, 5, buf.length);
          expect(buf.toString('latin1', 5, end)).toBe(microTime(t));
        }
      }),
    );
    buf.fill(0x2a);
    expect(writeMicroTime(Date.UTC(2026, 0, 2) * 1000, buf, 10, 10 + 26)).toBe(-1);
    expect(buf.every((b) => b === 0x2a)).toBe(true);
    expect(writeMicroTime(Date.UTC(2026, 0, 2) * 1000 + 7, buf, 10, 10 + 27)).toBe(37);
    expect(buf.toString('latin1', 10, 37)).toBe('2026-01-02T00:00:00.000007Z');
  });

  it('writes the six digits of every microsecond of a second (writeMicroDigits), and nothing around them', () => {
    const buf = Buffer.alloc(10, 0x2a);
    for (let fraction = 0; fraction < 1_000_000; fraction++) {
      writeMicroDigits(fraction, buf, 2);
      if (buf.toString('latin1') !== `**${String(fraction).padStart(6, '0')}**`) expect(buf.toString('latin1')).toBe(`**${String(fraction).padStart(6, '0')}**`);
    }
  });

  it('writes MicroTime as Date does to the millisecond, plus the microseconds, for times in any order (its cached second and millisecond)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4_102_444_800_000_000 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 2_000 }), (times, step) => {
        for (const t of times.flatMap((t) => [t, t + step, t + 1])) {
          const ms = Math.floor(t / 1000);
          expect(microTime(t)).toBe(`${new Date(ms).toISOString().slice(0, 23)}${String(t % 1000).padStart(3, '0')}Z`);
        }
      }),
    );
  });

  it('encodes one JSON line, int64 values exact', () => {
    const line = encodeEventLine({ ...event, requestObject: { n: 9007199254740993n } });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(line).toContain('"requestObject":{"n":9007199254740993}');
    expect(JSON.parse(line)).toMatchObject({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', auditID: 'b0d5ed6a-1' });
  });

  // k8s.io/apiserver pkg/audit/format.go EventString.
  it('writes the legacy line as Kubernetes does', () => {
    expect(eventString(event)).toBe(
      '2026-01-02T03:04:05.12Z AUDIT: id="b0d5ed6a-1" stage="ResponseComplete" ip="10.0.0.1" method="list" user="writer" groups="\\"writers\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.32.0" namespace="<none>" uri="/apis/certificates.plat.io/v1alpha1/clustertrustbundles" response="200"',
    );
    const anonymous = eventString({ ...event, user: {}, impersonatedUser: { username: 'alice' }, responseStatus: undefined, sourceIPs: [], objectRef: { namespace: 'ns' } });
    expect(anonymous).toContain('ip="<unknown>" method="list" user="<none>" groups="<none>" as="alice" asgroups="<lookup>"');
    expect(anonymous).toContain('namespace="ns"');
    expect(anonymous).toMatch(/response="<deferred>"$/);
  });
});
