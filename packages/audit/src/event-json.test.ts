import fc from 'fast-check';
import { encodeJson } from '@plat/api-model';
import { EventRecord, microTime, type AuditEvent } from './event.js';
import { encodeEventInto, encodeEventJson } from './event-json.js';

const sourceIPs = Object.freeze(['127.0.0.1']);

function getEvent(auditID: string, reason: string): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID,
    stage: 'ResponseComplete',
    requestURI: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/bench',
    verb: 'get',
    user: { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] },
    sourceIPs,
    userAgent: 'kubectl/v1.32.0',
    objectRef: { resource: 'clustertrustbundles', name: 'bench', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' },
    requestReceivedTimestamp: '2026-11-28T02:17:34.123456Z',
    stageTimestamp: '2026-11-28T02:17:34.123999Z',
    annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': reason },
    responseStatus: { metadata: {}, code: 200 },
  };
}

// Strings with what JSON escapes: quotes, backslashes, control characters, lone surrogates, and non-ASCII.
const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('', '"', '\\', '\n', '\u2028', '\ud800', 'a\udc00b', 'é'));
const strings = fc.array(text, { maxLength: 3 });

const event: fc.Arbitrary<AuditEvent> = fc
  .record(
    {
      kind: fc.constant('Event' as const),
      apiVersion: fc.constant('audit.k8s.io/v1' as const),
      level: fc.constantFrom('Metadata', 'Request', 'RequestResponse') as fc.Arbitrary<AuditEvent['level']>,
      auditID: text,
      stage: fc.constantFrom('RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic') as fc.Arbitrary<AuditEvent['stage']>,
      requestURI: text,
      verb: text,
      user: fc.record({ username: text, uid: text, groups: strings, extra: fc.dictionary(text, strings, { maxKeys: 2 }) }, { requiredKeys: [] }),
      impersonatedUser: fc.record({ username: text, groups: strings }, { requiredKeys: [] }),
      sourceIPs: fc.oneof(strings, fc.constant(sourceIPs)),
      userAgent: text,
      objectRef: fc.record({ resource: text, namespace: text, name: text, uid: text, apiGroup: text, apiVersion: text, resourceVersion: text, subresource: text }, { requiredKeys: [] }),
      responseStatus: fc.oneof(
        fc.record({ metadata: fc.constant({}), code: fc.integer({ min: 100, max: 599 }) }),
        fc.record({ metadata: fc.constant({}), status: text, message: text, reason: text, details: fc.jsonValue(), code: fc.integer() }, { requiredKeys: ['metadata'] }),
      ),
      requestObject: fc.oneof(fc.jsonValue(), fc.record({ n: fc.bigInt() }), fc.constant(undefined)),
      responseObject: fc.jsonValue(),
      requestReceivedTimestamp: text,
      stageTimestamp: text,
      annotations: fc.dictionary(text, text, { maxKeys: 3 }),
    },
    { requiredKeys: ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'requestReceivedTimestamp', 'stageTimestamp'] },
  )
  .map((ev) => ev as AuditEvent);

describe('encodeEventJson', () => {
  it('writes the line encodeJson (JSON.stringify) writes for a GET event, event after event', () => {
    const reason = 'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"';
    for (let i = 0; i < 3; i++) {
      const ev = getEvent(`id-${i}`, reason);
      expect(encodeEventJson(ev)).toBe(JSON.stringify(ev));
    }
    expect(JSON.parse(encodeEventJson(getEvent('x', reason)))).toEqual(getEvent('x', reason));
  });

  it('writes what encodeJson writes for any event, also when the next event differs in one field', () => {
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 4 }), (events) => {
        for (const ev of events) {
          expect(encodeEventJson(ev)).toBe(encodeJson(ev));
          // The same event again (every piece reused), then with the user's groups changed in place.
          expect(encodeEventJson(ev)).toBe(encodeJson(ev));
          if (ev.user.groups) {
            ev.user.groups.push('changed');
            expect(encodeEventJson(ev)).toBe(encodeJson(ev));
          }
          if (ev.sourceIPs && !Object.isFrozen(ev.sourceIPs)) {
            (ev.sourceIPs as string[]).push('10.0.0.1');
            expect(encodeEventJson(ev)).toBe(encodeJson(ev));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the key order of the event (fields added later come after the timestamps)', () => {
    const ev = getEvent('id', 'r');
    delete ev.annotations;
    ev.responseStatus = { metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403 };
    ev.annotations = { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' };
    ev.userAgent = undefined;
    const line = encodeEventJson(ev);
    expect(line).toBe(JSON.stringify(ev));
    expect(line.indexOf('"annotations"')).toBeGreaterThan(line.indexOf('"responseStatus"'));
    expect(line).not.toContain('userAgent');
  });
});

/** The line encodeEventInto writes, or what the log backend writes when it declines (encodeEventJson). */
function intoOrString(ev: AuditEvent, buf: Buffer, at = 0, end = buf.length): string {
  const stop = encodeEventInto(ev, buf, at, end);
  return stop < 0 ? encodeEventJson(ev) : buf.toString('utf8', at, stop);
}

/**
 * `ev` as an EventRecord (as RequestAudit makes events) with its keys in `ev`'s order and its
 * times as microseconds, their strings not made.
 */
function pendingRecord(ev: AuditEvent, receivedMicros: number, stageMicros: number): EventRecord {
  const record = new EventRecord(ev.level, ev.auditID, ev.requestURI, ev.verb, ev.user, ev.sourceIPs ?? []);
  record.stage = ev.stage;
  const fields = record as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(ev)) {
    if (key === 'requestReceivedTimestamp') record.startTimes(receivedMicros);
    else if (key === 'stageTimestamp') record.setStageMicros(stageMicros);
    else if (!(key in fields)) fields[key] = value;
  }
  return record;
}

/** The value with its lists frozen, as the server shares users, object references, annotations and statuses between events. */
function deepFrozen<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  for (const v of Object.values(value)) deepFrozen(v);
  return Object.freeze(value);
}

describe('shared (frozen) pieces', () => {
  it('writes an event with the keys and the same shared pieces as the last line from its runs, and anything else anew', () => {
    const buf = Buffer.alloc(4096, 0x2a);
    const user = deepFrozen({ username: 'system:admin', groups: ['system:masters', 'system:authenticated'] });
    const objectRef = deepFrozen({ resource: 'clustertrustbundles', name: 'bench', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' });
    const annotations = deepFrozen({ 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' });
    const responseStatus = deepFrozen({ metadata: {}, code: 200 });
    const shared = (auditID: string): AuditEvent => ({ ...getEvent(auditID, ''), user, objectRef, annotations, responseStatus });
    const lines: AuditEvent[] = [shared('a'), shared('b'), { ...shared('c'), stageTimestamp: '2026-11-28T02:17:35.000001Z' }, shared('d')];
    // A user frozen without its list (the list may change), the same object again after a change.
    const shallow = Object.freeze({ username: 'u', groups: ['g'] });
    lines.push({ ...shared('e'), user: shallow }, { ...shared('f'), user: shallow });
    // Another shared user; a key less; a key more (a request object: the string way); a changing value that is not plain ASCII.
    lines.push({ ...shared('g'), user: deepFrozen({ username: 'v' }) }, shared('h'), shared('i'));
    const fewer = shared('j');
    delete fewer.annotations;
    const lastLess = shared('j2');
    delete lastLess.responseStatus;
    lines.push(fewer, shared('k'), lastLess, shared('k2'), { ...shared('l'), requestObject: { a: 1 } }, shared('m'), shared('é'), shared('n'), shared('o'));
    for (const [i, ev] of lines.entries()) {
      if (i === 5) shallow.groups.push('h');
      expect(intoOrString(ev, buf, 5)).toBe(JSON.stringify(ev));
    }
    // No room: nothing written past `end`, then the line in full.
    const ev = shared('p');
    const length = JSON.stringify(ev).length;
    for (const cut of [1, 20, length - 40, length - 1]) {
      buf.fill(0x2a);
      expect(encodeEventInto(ev, buf, 5, 5 + cut)).toBe(-1);
      expect(buf.subarray(5 + cut).every((b) => b === 0x2a)).toBe(true);
    }
    expect(intoOrString(ev, buf, 5)).toBe(JSON.stringify(ev));
  });

  it('writes events with pending times and shared pieces as RequestAudit makes them, one after the other', () => {
    const buf = Buffer.alloc(4096);
    const base = { ...getEvent('x', ''), user: deepFrozen({ username: 'system:admin' }), sourceIPs: deepFrozen(['127.0.0.1']), responseStatus: deepFrozen({ metadata: {}, code: 200 }) };
    const t = Date.UTC(2026, 10, 28, 2, 17, 34) * 1000;
    for (let i = 0; i < 6; i++) {
      const record = pendingRecord({ ...base, auditID: `id-${i}` }, t + i * 999_999, t + i * 1_000_001);
      const end = encodeEventInto(record as AuditEvent, buf, 0, buf.length);
      expect(end).toBeGreaterThan(0);
      record.makeTimestamps();
      expect(buf.toString('utf8', 0, end)).toBe(JSON.stringify(record));
    }
  });

  it('writes what encodeJson writes when events share frozen pieces, take other frozen or unfrozen ones, or equal copies', () => {
    const buf = Buffer.alloc(64 * 1024);
    const piece = fc.record({ user: event.map((e) => e.user), objectRef: event.map((e) => e.objectRef), annotations: event.map((e) => e.annotations), code: fc.integer({ min: 100, max: 599 }) });
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom('frozen', 'copy', 'into', 'string')), { minLength: 1, maxLength: 8 }),
        (pool, picks) => {
          const frozen = pool.map((p) => deepFrozen({ ...structuredClone(p), responseStatus: { metadata: {}, code: p.code } }));
          for (const [n, how] of picks) {
            const p = frozen[n % frozen.length]!;
            const shared = how !== 'copy';
            const ev = getEvent(`id-${n}`, 'r');
            ev.user = shared ? p.user : structuredClone(p.user);
            if (p.objectRef) ev.objectRef = shared ? p.objectRef : structuredClone(p.objectRef);
            else delete ev.objectRef;
            if (p.annotations) ev.annotations = shared ? p.annotations : structuredClone(p.annotations);
            else delete ev.annotations;
            ev.responseStatus = shared ? p.responseStatus : { metadata: {}, code: p.code };
            const line = how === 'string' ? encodeEventJson(ev) : intoOrString(ev, buf);
            expect(line).toBe(encodeJson(ev));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('encodeEventInto', () => {
  it('writes the line of a GET event straight into the buffer, event after event, without declining', () => {
    const reason = 'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"';
    const buf = Buffer.alloc(4096);
    let at = 7;
    for (let i = 0; i < 5; i++) {
      const ev = getEvent(`id-${i}`, reason);
      const end = encodeEventInto(ev, buf, at, buf.length);
      expect(end).toBeGreaterThan(at);
      expect(buf.toString('utf8', at, end)).toBe(JSON.stringify(ev));
      at = end;
    }
    // A changed piece between the changing values (another user) makes the run's bytes anew.
    const ev = getEvent('id-x', reason);
    ev.user = { username: 'jane', groups: ['system:authenticated'] };
    const end = encodeEventInto(ev, buf, 0, buf.length);
    expect(buf.toString('utf8', 0, end)).toBe(JSON.stringify(ev));
  });

  it('writes a request URI that repeats from the bytes of the last one, and a changed one anew', () => {
    const buf = Buffer.alloc(4096, 0x2a);
    const uris = ['/a/one', '/a/one', '/a/one', '/a/two', '/a/two', '/a/one', '/a/é', '/a/é', '/a/"q"', '/a/one', '/a/one'];
    for (const [i, uri] of uris.entries()) {
      const ev = { ...getEvent(`id-${i}`, 'r'), requestURI: `${uri}` };
      expect(intoOrString(ev, buf, 3)).toBe(JSON.stringify(ev));
      // No room for the repeated URI's bytes: declined, nothing written past `end`.
      buf.fill(0x2a);
      const end = JSON.stringify(ev).indexOf(uri) + 3;
      expect(encodeEventInto(ev, buf, 3, end)).toBe(-1);
      expect(buf.subarray(end).every((b) => b === 0x2a)).toBe(true);
    }
  });

  it('declines, writing nothing past `end`, when the line does not fit, a changing value is not plain ASCII, or it has a request object', () => {
    const ev = getEvent('id', 'r');
    const buf = Buffer.alloc(4096, 0x2a);
    const full = JSON.stringify(ev).length;
    expect(encodeEventInto(ev, buf, 100, 100 + full - 1)).toBe(-1);
    expect(buf.subarray(100 + full - 1).every((b) => b === 0x2a)).toBe(true);
    expect(encodeEventInto(ev, buf, 100, 100 + full)).toBe(100 + full);
    // A request object goes the string way (it would change every run of bytes it is in).
    const withObject = { ...getEvent('id-o', 'r'), requestObject: { kind: 'ClusterTrustBundle' } };
    expect(encodeEventInto(withObject, buf, 0, buf.length)).toBe(-1);
    expect(encodeEventJson(withObject)).toBe(JSON.stringify(withObject));
    for (const auditID of ['é', 'a"b', 'a\\b', '\n', '\ud800']) {
      const odd = getEvent(auditID, 'r');
      expect(encodeEventInto(odd, buf, 0, buf.length)).toBe(-1);
      expect(encodeEventJson(odd)).toBe(JSON.stringify(odd));
    }
  });

  it('writes the times of an event whose timestamp strings are not made yet (an EventRecord) from their microseconds, without declining', () => {
    const buf = Buffer.alloc(4096);
    const t = Date.UTC(2026, 10, 28, 2, 17, 34) * 1000 + 123_456;
    for (let i = 0; i < 3; i++) {
      const record = pendingRecord(getEvent(`id-${i}`, 'r'), t + i, t + i * 1_000_001);
      expect(record.requestReceivedTimestamp).toBe('');
      const end = encodeEventInto(record as AuditEvent, buf, 0, buf.length);
      expect(end).toBeGreaterThan(0);
      const made = pendingRecord(getEvent(`id-${i}`, 'r'), t + i, t + i * 1_000_001);
      made.makeTimestamps();
      expect(made.stageTimestamp).toBe(microTime(t + i * 1_000_001));
      expect(buf.toString('utf8', 0, end)).toBe(JSON.stringify(made));
    }
  });

  it('writes what encodeJson writes for any event with pending times once they are made, also when it declines (the strings are made then)', () => {
    const buf = Buffer.alloc(64 * 1024);
    const time = fc.integer({ min: 0, max: 4_102_444_800_000_000 });
    fc.assert(
      fc.property(fc.array(fc.tuple(event, time, fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 0, max: 2 })), { minLength: 1, maxLength: 5 }), (events) => {
        for (const [ev, t, step, how] of events) {
          const record = pendingRecord(ev, t, t + step) as AuditEvent;
          const line = how === 0 ? encodeEventJson(record) : how === 1 ? intoOrString(record, buf) : intoOrString(record, buf, 10, 10 + 300);
          const made = pendingRecord(ev, t, t + step);
          made.makeTimestamps();
          expect(line).toBe(encodeJson(made));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('writes what encodeJson writes for any event, taking turns with encodeEventJson as the log backend does when it declines', () => {
    const buf = Buffer.alloc(64 * 1024);
    fc.assert(
      fc.property(fc.array(fc.tuple(event, fc.integer({ min: 0, max: 2 })), { minLength: 1, maxLength: 5 }), (events) => {
        for (const [ev, how] of events) {
          const line = how === 0 ? encodeEventJson(ev) : how === 1 ? intoOrString(ev, buf) : intoOrString(ev, buf, 10, 10 + 200);
          expect(line).toBe(encodeJson(ev));
          // The same event again (every piece reused), then with the user's groups changed in place.
          expect(intoOrString(ev, buf)).toBe(encodeJson(ev));
          expect(encodeEventJson(ev)).toBe(encodeJson(ev));
          if (ev.user.groups) {
            ev.user.groups.push('changed');
            expect(intoOrString(ev, buf)).toBe(encodeJson(ev));
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('the last line as a template (encodeSame)', () => {
  const user = deepFrozen({ username: 'system:admin', groups: ['system:masters', 'system:authenticated'] });
  const objectRef = deepFrozen({ resource: 'clustertrustbundles', name: 'bench', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' });
  const annotations = deepFrozen({ 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' });
  const responseStatus = deepFrozen({ metadata: {}, code: 200 });
  const uri = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/bench';
  const t = Date.UTC(2026, 10, 28, 2, 17, 34) * 1000 + 999_990;
  const uuid = (i: number): string => `0f6b2c1e-5a7d-4c2b-9e1f-${String(100000000000 + i)}`;
  const shared = (auditID: string, requestURI = uri): AuditEvent => ({ ...getEvent(auditID, ''), requestURI, user, objectRef, annotations, responseStatus });

  /** `ev` as a record with pending times, written by encodeEventInto (declining: encodeEventJson), against JSON.stringify of the record with its strings made. */
  function check(ev: AuditEvent, received: number, stage: number, buf: Buffer, at = 0, end = buf.length): string {
    const line = intoOrString(pendingRecord(ev, received, stage) as AuditEvent, buf, at, end);
    const made = pendingRecord(ev, received, stage);
    made.makeTimestamps();
    expect(line).toBe(JSON.stringify(made));
    return line;
  }

  it('writes the same line over and over with new audit IDs and times, across second boundaries', () => {
    const buf = Buffer.alloc(4096, 0x2a);
    let at = 0;
    for (let i = 0; i < 200; i++) {
      // Steps of 3 µs to 0.7 s: most events in the second of the one before, some in the next.
      const received = t + i * (i % 7 === 0 ? 700_003 : 3);
      const record = pendingRecord(shared(uuid(i)), received, received + 40);
      if (at > buf.length - 1024) at = 0;
      const stop = encodeEventInto(record as AuditEvent, buf, at, buf.length);
      expect(stop).toBeGreaterThan(at);
      record.makeTimestamps();
      expect(buf.toString('utf8', at, stop)).toBe(JSON.stringify(record));
      at = stop;
    }
  });

  it('writes an audit ID of another length, a request URI of the same and of another length, and times as strings', () => {
    const buf = Buffer.alloc(4096, 0x2a);
    const same = uri.replace('bench', 'bunch');
    const other = `${uri}?resourceVersion=0`;
    const cases: Array<[string, string, number]> = [
      [uuid(0), uri, t],
      [uuid(1), uri, t + 1],
      [uuid(2), uri, t + 2],
      ['mine', uri, t + 3], // a client's own Audit-Id
      ['mine-too', uri, t + 4],
      ['mine-3', uri, t + 5],
      [uuid(3), uri, t + 6],
      [uuid(4), uri, t + 7],
      [uuid(5), same, t + 8],
      [uuid(6), uri, t + 9],
      [uuid(7), uri.replace('bench', 'xénch'), t + 10], // same length, not plain ASCII: the string way (the template's URI half overwritten)
      [uuid(8), uri, t + 11],
      [uuid(9), uri, t + 12],
      [uuid(10), other, t + 13],
      [uuid(11), other, t + 14],
      [uuid(12), uri, t + 15],
      [uuid(13), uri, t + 16],
      [uuid(16), uri, t + 17],
      [uuid(17), uri, t + 18],
      ['a"b-5a7d-4c2b-9e1f-100000000019xxxx', uri, t + 19], // the length of a UUID, with a quote: the string way
      [uuid(18), uri, t + 20],
      [uuid(19), uri, t + 21],
    ];
    for (const [auditID, requestURI, received] of cases) {
      check(shared(auditID, requestURI), received, received + 1_000_123, buf, 7);
      check(shared(auditID, requestURI), received, received + 1_000_123, buf, 7);
    }
    // Times as strings (an event that is no EventRecord), of the template's length and of another,
    // then pending times again in the seconds the template held before the strings.
    const [received, stage] = [t + 21, t + 21 + 1_000_123];
    const strings = (...stageTimestamps: string[]): void => {
      for (const stageTimestamp of stageTimestamps) {
        const ev = { ...shared(uuid(30)), stageTimestamp };
        expect(intoOrString(ev, buf, 3)).toBe(JSON.stringify(ev));
      }
    };
    check(shared(uuid(29)), received, stage, buf);
    strings('2026-11-28T02:17:37.000001Z', '2026-11-28T02:17:37.000002Z');
    check(shared(uuid(31)), received, stage, buf);
    strings('2026-11-28T02:17:37Z', '2026-11-28T02:17:37.000003Z', '2026-11-28T02:17:37.000004Z');
    check(shared(uuid(32)), received + 1, stage + 1, buf);
    check(shared(uuid(33)), received + 2, stage + 2, buf);
  });

  it('declines a line that does not fit before `end`, writing nothing past it, and then writes it where it fits', () => {
    const buf = Buffer.alloc(4096, 0x2a);
    check(shared(uuid(0)), t, t + 1, buf);
    check(shared(uuid(1)), t, t + 2, buf);
    check(shared(uuid(2)), t, t + 3, buf);
    for (const [i, auditID] of [uuid(3), 'short', uuid(4), uuid(5)].entries()) {
      const ev = shared(auditID);
      const made = pendingRecord(ev, t + i, t + 2_000_000 + i);
      made.makeTimestamps();
      const length = JSON.stringify(made).length;
      for (const cut of [0, 1, 20, 200, length - 30, length - 1]) {
        buf.fill(0x2a);
        expect(encodeEventInto(pendingRecord(ev, t + i, t + 2_000_000 + i) as AuditEvent, buf, 9, 9 + cut)).toBe(-1);
        expect(buf.subarray(9 + cut).every((b) => b === 0x2a)).toBe(true);
      }
      // Exactly its length: written, by the template too.
      expect(check(ev, t + i, t + 2_000_000 + i, buf, 9, 9 + length)).toHaveLength(length);
      expect(check(ev, t + i, t + 2_000_000 + i, buf, 9, 9 + length)).toHaveLength(length);
    }
  });

  it('writes what JSON.stringify writes for any run of shared events with audit IDs, URIs and times of several lengths, and no room now and then', () => {
    const buf = Buffer.alloc(8192);
    const id = fc.oneof(fc.constantFrom(uuid(1), uuid(2), 'mine', '', 'é', 'a"b'), fc.uuid());
    const path = fc.constantFrom(uri, uri.replace('bench', 'bunch'), `${uri}?x=1`, '/a/é', '/a\\b', uri);
    const time = fc.oneof(fc.integer({ min: 0, max: 4_102_444_800_000_000 }), fc.integer({ min: t - 3_000_000, max: t + 3_000_000 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(id, path, time, fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 12 }), (events) => {
        for (const [auditID, requestURI, received, step, room] of events) {
          const ev = shared(auditID, requestURI);
          if (room === 0) {
            buf.fill(0x2a);
            const end = 50 + ((received + step) % 700);
            const stop = encodeEventInto(pendingRecord(ev, received, received + step) as AuditEvent, buf, 50, end);
            if (stop < 0) expect(buf.subarray(end).every((b) => b === 0x2a)).toBe(true);
            else expect(stop).toBeLessThanOrEqual(end);
          }
          check(ev, received, received + step, buf, 11);
        }
      }),
      { numRuns: 300 },
    );
  });
});
