#!/usr/bin/env node
// The JSON line of one audited GET's event (Metadata, ResponseComplete, as the server builds it:
// a fresh user, object reference and annotations per event, the same source IP list while the
// client is the same) encoded by JSON.stringify and by encodeEventJson (packages/audit
// event-json.ts), and written straight into the slab by encodeEventInto, taking turns round by
// round; checks that all write the same bytes. Last, encodeEventInto for events whose user, object
// reference, annotations and status are shared frozen objects, as the server now makes them.
//
//   node tools/bench/audit/event-json.mjs [--events 200000] [--rounds 7]
import { benchFlags } from '../lib/apiserver-harness.mjs';
import { importSources } from '../lib/import-sources.mjs';

const { flag } = benchFlags();
const events = Number(flag('events', '200000'));
const rounds = Number(flag('rounds', '7'));
const m = await importSources(`export { encodeEventJson, encodeEventInto } from './packages/audit/src/event-json.ts'; export { microTime, nowMicros } from '@plat/audit';`);

const sourceIPs = Object.freeze(['127.0.0.1']);
// As the server shares them now between the events of a client's GETs of one object: a frozen
// user (the client certificate's), object reference, authorization annotations and status.
const sharedPieces = {
  user: Object.freeze({ username: 'system:admin', groups: Object.freeze(['system:masters', 'system:authenticated']) }),
  objectRef: Object.freeze({ resource: 'clustertrustbundles', name: 'bench', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' }),
  annotations: Object.freeze({ 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"' }),
  responseStatus: Object.freeze({ metadata: Object.freeze({}), code: 200 }),
};
// An event of the recommended policy's GET: its user, object reference, annotations and status
// either shared (as the server hands them over) or made new for each event.
const freshPieces = () => ({
  user: { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] },
  objectRef: { resource: 'clustertrustbundles', name: 'bench', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' },
  annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"' },
  responseStatus: { metadata: {}, code: 200 },
});
const eventOf = (i, pieces) => {
  const now = m.nowMicros();
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: `0f6b2c1e-5a7d-4c2b-9e1f-${String(100000000000 + i)}`,
    stage: 'ResponseComplete',
    requestURI: '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/bench',
    verb: 'get',
    user: pieces.user,
    sourceIPs,
    userAgent: 'autocannon',
    objectRef: pieces.objectRef,
    requestReceivedTimestamp: m.microTime(now - 60),
    stageTimestamp: m.microTime(now),
    annotations: pieces.annotations,
    responseStatus: pieces.responseStatus,
  };
};
const sharedEvent = (i) => eventOf(i, sharedPieces);
const event = (i) => eventOf(i, freshPieces());
for (let i = 0; i < 1000; i++) {
  const ev = event(i);
  if (m.encodeEventJson(ev) !== JSON.stringify(ev)) throw new Error(`different lines:\n${m.encodeEventJson(ev)}\n${JSON.stringify(ev)}`);
  const into = Buffer.alloc(4096);
  const end = m.encodeEventInto(ev, into, 0, into.length);
  if (end < 0 || into.toString('utf8', 0, end) !== JSON.stringify(ev)) throw new Error(`encodeEventInto differs:\n${into.toString('utf8', 0, Math.max(0, end))}`);
  const shared = sharedEvent(i);
  const sharedEnd = m.encodeEventInto(shared, into, 0, into.length);
  if (sharedEnd < 0 || into.toString('utf8', 0, sharedEnd) !== JSON.stringify(shared)) throw new Error(`encodeEventInto differs (shared pieces):\n${into.toString('utf8', 0, Math.max(0, sharedEnd))}`);
}
const slab = Buffer.allocUnsafeSlow(1 << 20);
const run = (encode, make = event) => {
  const t = process.cpuUsage();
  let at = 0;
  for (let i = 0; i < events; i++) {
    if (encode === m.encodeEventInto) {
      // Straight into the slab, as the background writer has it do.
      if (at + 8192 > slab.length) at = 0;
      at = m.encodeEventInto(make(i), slab, at, slab.length);
      continue;
    }
    const line = encode(make(i));
    if (at + line.length * 3 > slab.length) at = 0;
    at += slab.write(line, at); // as the background writer takes the line
  }
  const u = process.cpuUsage(t);
  return (u.user + u.system) / events;
};
const base = (ev) => JSON.stringify(ev);
const none = () => '';
for (const f of [base, m.encodeEventJson, m.encodeEventInto, none]) run(f); // warm-up
run(m.encodeEventInto, sharedEvent);
run(none, sharedEvent);
const a = [];
const b = [];
const c = [];
const d = [];
for (let r = 0; r < rounds; r++) {
  const n = run(none);
  a.push(run(base) - n);
  b.push(run(m.encodeEventJson) - n);
  c.push(run(m.encodeEventInto) - n);
  d.push(run(m.encodeEventInto, sharedEvent) - run(none, sharedEvent));
}
const med = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
const span = (v) => `[${Math.min(...v).toFixed(2)}–${Math.max(...v).toFixed(2)}]`;
console.log(`JSON.stringify + slab write: ${med(a).toFixed(2)} µs ${span(a)}; encodeEventJson + slab write: ${med(b).toFixed(2)} µs ${span(b)}; encodeEventInto the slab: ${med(c).toFixed(2)} µs ${span(c)}; the same with shared (frozen) pieces: ${med(d).toFixed(2)} µs ${span(d)} (n=${rounds}, beyond building the event)`);
