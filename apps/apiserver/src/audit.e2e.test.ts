import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { createCertificateAuthority, issueClientCertificate } from '@plat/x509';
import { eventually, startServer, startWebhook, tempDir, type TestServer } from '../test/auth-fixtures.js';

// Auditing end to end: the apiserver in process with a Policy, the log backend (blocking) and a real
// HTTPS webhook receiver (batch mode), driven by the real kubectl as a token user and an
// impersonated user. Every event is checked field by field in the file and at the webhook.

const kubectlPath = '/usr/bin/kubectl';
const hasKubectl = fs.existsSync(kubectlPath);
if (!hasKubectl) console.warn('audit.e2e: /usr/bin/kubectl is missing (Debian package kubernetes-client); the kubectl cases are skipped');
const itKubectl = hasKubectl ? it : it.skip;

const ctbPath = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
const writerToken = 'audit-writer-secret-token';
const nobodyToken = 'audit-nobody-secret-token';

// The recommended policy of docs/audit.md, reduced to what the suite exercises.
const policy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: []
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/version", "/api", "/api/*", "/apis", "/apis/*", "/openapi/*"]
- level: RequestResponse
  verbs: [create, update, patch, delete, deletecollection]
  resources:
  - group: certificates.plat.io
    resources: [clustertrustbundles]
  - group: rbac.authorization.k8s.io
  omitManagedFields: true
- level: Metadata
`;

interface Event {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  requestURI: string;
  verb: string;
  user: { username?: string; groups?: string[] };
  impersonatedUser?: { username?: string; groups?: string[] };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: Record<string, string>;
  responseStatus?: { code?: number; reason?: string; status?: string };
  requestObject?: Record<string, unknown>;
  responseObject?: Record<string, unknown>;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

function kubectl(kubeconfig: string, home: string, args: string[], input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(kubectlPath, ['--kubeconfig', kubeconfig, '--cache-dir', `${home}/cache`, ...args], { env: { PATH: '/usr/bin', HOME: home }, timeout: 30000 }, (error, stdout, stderr) => {
      resolve({ code: error ? 1 : 0, stdout: String(stdout), stderr: String(stderr) });
    });
    child.stdin!.end(input);
  });
}

function bundle(name: string, pem: string, signerName?: string): string {
  return JSON.stringify({ apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { ...(signerName ? { signerName } : {}), trustBundle: pem } });
}

const microTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('auditing with --audit-policy-file, --audit-log-path and --audit-webhook-config-file', () => {
  let dir: string;
  let s: TestServer;
  let logFile: string;
  let kubeconfig: string;
  let home: string;
  let pem: string;
  let webhook: Awaited<ReturnType<typeof startWebhook>>;
  const events = () =>
    fs
      .readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Event);
  const webhookEvents = () => webhook.calls.flatMap((c) => ((c as unknown as { items?: Event[] }).items ?? []));
  const byName = (name: string, verb: string) => events().filter((e) => e.objectRef?.name === name && e.verb === verb);

  beforeAll(async () => {
    dir = tempDir('plat-audit-');
    home = path.join(dir, 'home');
    fs.mkdirSync(home);
    webhook = await startWebhook(dir, () => ({ raw: '{}', code: 200 }));
    const policyFile = path.join(dir, 'policy.yaml');
    fs.writeFileSync(policyFile, policy);
    const tokens = path.join(dir, 'tokens.csv');
    fs.writeFileSync(tokens, `${writerToken},writer,u1,"system:masters,writers"\n${nobodyToken},nobody,u2\n`);
    logFile = path.join(dir, 'audit.log');
    s = await startServer(path.join(dir, 'data'), [
      `--token-auth-file=${tokens}`,
      `--audit-policy-file=${policyFile}`,
      `--audit-log-path=${logFile}`,
      `--audit-webhook-config-file=${webhook.configFile}`,
      '--audit-webhook-batch-max-wait=200ms',
    ]);
    pem = s.running.devPki!.ca.certPem;
    kubeconfig = path.join(dir, 'writer.conf');
    const b64 = (t: string) => Buffer.from(t).toString('base64');
    fs.writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "${s.url}", certificate-authority-data: ${b64(pem)}}\nusers:\n- name: writer\n  user: {token: ${writerToken}}\ncontexts:\n- name: c\n  context: {cluster: c, user: writer}\ncurrent-context: c\n`,
    );
  });
  afterAll(async () => {
    await s?.stop();
    await webhook?.close();
  });

  itKubectl('records kubectl create by a token user once per stage, with the user, the object reference and the body', async () => {
    const r = await kubectl(kubeconfig, home, ['create', '-f', '-'], bundle('example.com:audit:one', pem, 'example.com/audit'));
    expect(r).toMatchObject({ code: 0 });
    const id = byName('example.com:audit:one', 'create')[0]!.auditID;
    const evs = events().filter((e) => e.auditID === id);
    expect(evs.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    // A create names its object in the body: RequestReceived knows only the collection, as in Kubernetes.
    expect(evs[0]!.objectRef).toEqual({ resource: 'clustertrustbundles', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' });
    const [received, complete] = evs as [Event, Event];
    expect(received.auditID).toBe(complete.auditID);
    expect(complete).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      stage: 'ResponseComplete',
      requestURI: expect.stringMatching(/^\/apis\/certificates\.plat\.io\/v1alpha1\/clustertrustbundles(\?|$)/),
      verb: 'create',
      user: { username: 'writer', uid: 'u1', groups: expect.arrayContaining(['system:masters', 'writers', 'system:authenticated']) },
      sourceIPs: ['127.0.0.1'],
      userAgent: expect.stringMatching(/^kubectl/),
      objectRef: { resource: 'clustertrustbundles', name: 'example.com:audit:one', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' },
      responseStatus: { code: 201 },
      requestObject: { kind: 'ClusterTrustBundle', spec: { signerName: 'example.com/audit', trustBundle: pem } },
      responseObject: { kind: 'ClusterTrustBundle', metadata: { name: 'example.com:audit:one' } },
      annotations: {
        'authorization.k8s.io/decision': 'allow',
        'authorization.k8s.io/reason': expect.any(String),
        'clustertrustbundleattest.admission.plat.io/signer': 'example.com/audit',
      },
    });
    expect(complete.requestReceivedTimestamp).toMatch(microTime);
    expect(complete.stageTimestamp >= complete.requestReceivedTimestamp).toBe(true);
    // omitManagedFields: the stored object's managedFields stay out of the event.
    expect((complete.responseObject!.metadata as Record<string, unknown>).managedFields).toBeUndefined();
    // RequestReceived carries no response yet.
    expect(received.responseStatus).toBeUndefined();
    expect(received.responseObject).toBeUndefined();
  });

  itKubectl('records apply --server-side, patch and delete by an impersonated user, with both users', async () => {
    const as = ['--as=alice', '--as-group=system:masters'];
    expect(await kubectl(kubeconfig, home, ['apply', '--server-side', ...as, '-f', '-'], bundle('example.com:audit:two', pem, 'example.com/audit'))).toMatchObject({ code: 0 });
    expect(await kubectl(kubeconfig, home, ['patch', ...as, 'clustertrustbundles', 'example.com:audit:two', '--type=merge', '-p', '{"metadata":{"labels":{"team":"a"}}}'])).toMatchObject({ code: 0 });
    expect(await kubectl(kubeconfig, home, ['delete', ...as, 'clustertrustbundles', 'example.com:audit:two'])).toMatchObject({ code: 0 });
    const patches = byName('example.com:audit:two', 'patch');
    // apply and the merge patch: two requests, two stages each.
    expect(patches.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete', 'RequestReceived', 'ResponseComplete']);
    const [apply, merge] = [patches[1]!, patches[3]!];
    for (const e of [apply, merge]) {
      expect(e.user.username).toBe('writer');
      expect(e.impersonatedUser).toEqual({ username: 'alice', groups: expect.arrayContaining(['system:masters']) });
      expect(e.responseStatus?.code).toBe(e === apply ? 201 : 200);
    }
    expect(apply.requestObject).toMatchObject({ kind: 'ClusterTrustBundle', spec: { trustBundle: pem } });
    expect(merge.requestObject).toEqual({ metadata: { labels: { team: 'a' } } });
    expect(merge.responseObject).toMatchObject({ metadata: { labels: { team: 'a' } } });
    const del = byName('example.com:audit:two', 'delete');
    expect(del.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    expect(del[1]).toMatchObject({ level: 'RequestResponse', impersonatedUser: { username: 'alice' }, responseStatus: { code: 200 } });
  });

  it('records a 403 with the decision and the reason, and a 422 with its Status', async () => {
    const denied = await s.req({ token: nobodyToken }, 'POST', ctbPath, JSON.parse(bundle('example.com:audit:three', pem)));
    expect(denied.status).toBe(403);
    const forbidden = events().filter((e) => e.user.username === 'nobody' && e.verb === 'create' && e.stage === 'ResponseComplete');
    expect(forbidden).toHaveLength(1);
    expect(forbidden[0]).toMatchObject({
      level: 'RequestResponse',
      responseStatus: { code: 403, status: 'Failure', reason: 'Forbidden' },
      annotations: { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': expect.any(String) },
    });
    // Refused before the handler: no request body was read.
    expect(forbidden[0]!.requestObject).toBeUndefined();

    const invalid = await s.req({ token: writerToken }, 'POST', ctbPath, JSON.parse(bundle('example.com:audit:bad', 'not a pem')));
    expect(invalid.status).toBe(422);
    const bad = byName('example.com:audit:bad', 'create').filter((e) => e.stage === 'ResponseComplete');
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ responseStatus: { code: 422, reason: 'Invalid', status: 'Failure' }, responseObject: { kind: 'Status', code: 422 } });
  });

  // k8s.io/apiserver pkg/endpoints/filters/audit_test.go TestFailedAuthnAudit and getAuthMethods:
  // one event, at ResponseStarted, with the credentials tried by kind and never their values.
  it('records a refused request once, at ResponseStarted, naming the credentials tried: an untrusted client certificate, a bad token', async () => {
    const stranger = await createCertificateAuthority({ commonName: 'not the cluster CA' });
    const cert = await issueClientCertificate(stranger, { commonName: 'mallory' });
    const dispatcher = new Agent({ connect: { ca: pem, cert: cert.certPem, key: cert.keyPem } });
    try {
      const res = await request(`${s.url}${ctbPath}/example.com:audit:refused-x509`, { dispatcher, headers: { 'user-agent': 'refused-x509' } });
      await res.body.dump();
      expect(res.statusCode).toBe(401);
    } finally {
      await dispatcher.close();
    }
    expect((await s.req({ token: 'not-a-known-token' }, 'GET', `${ctbPath}/example.com:audit:refused-token`)).status).toBe(401);
    const refused = (name: string) => byName(name, 'get');
    await eventually(() => refused('example.com:audit:refused-x509').length > 0 && refused('example.com:audit:refused-token').length > 0);
    expect(refused('example.com:audit:refused-x509')).toEqual([
      expect.objectContaining({ stage: 'ResponseStarted', user: {}, userAgent: 'refused-x509', responseStatus: expect.objectContaining({ code: 401, message: 'Authentication failed, attempted: x509' }) }),
    ]);
    expect(refused('example.com:audit:refused-token')[0]).toMatchObject({ stage: 'ResponseStarted', user: {}, responseStatus: { code: 401, message: 'Authentication failed, attempted: bearer' } });
    expect(fs.readFileSync(logFile, 'utf8')).not.toContain('not-a-known-token');
  });

  it('records reads at Metadata without bodies, and nothing for discovery and health', async () => {
    const before = events().length;
    expect((await s.req({ token: writerToken }, 'GET', '/healthz')).status).toBe(200);
    expect((await s.req({ token: writerToken }, 'GET', '/apis')).status).toBe(200);
    expect(events().length).toBe(before);
    expect((await s.req({ token: writerToken }, 'GET', ctbPath)).status).toBe(200);
    const list = events().slice(before);
    expect(list.map((e) => `${e.verb} ${e.stage} ${e.level}`)).toEqual(['list RequestReceived Metadata', 'list ResponseComplete Metadata']);
    expect(list[1]).toMatchObject({ objectRef: { resource: 'clustertrustbundles', apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1' }, responseStatus: { code: 200 } });
    expect(list[1]!.requestObject).toBeUndefined();
    expect(list[1]!.responseObject).toBeUndefined();
  });

  it('records a watch at ResponseStarted when it starts and ResponseComplete when it ends', async () => {
    const r = await s.req({ token: writerToken }, 'GET', `${ctbPath}?watch=true&timeoutSeconds=1`);
    expect(r.status).toBe(200);
    const watch = events().filter((e) => e.verb === 'watch');
    expect(watch.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    expect(watch[1]!.responseStatus?.code).toBe(200);
    expect(watch[2]!.stageTimestamp >= watch[1]!.stageTimestamp).toBe(true);
  });

  it('sends the same events to the webhook as EventLists, and never writes a credential', async () => {
    const fileIDs = new Set(events().map((e) => `${e.auditID} ${e.stage}`));
    await eventually(() => webhookEvents().length >= fileIDs.size, 10_000);
    expect(new Set(webhookEvents().map((e) => `${e.auditID} ${e.stage}`))).toEqual(fileIDs);
    expect(webhook.calls.every((c) => (c as unknown as { kind: string }).kind === 'EventList')).toBe(true);
    const created = webhookEvents().find((e) => e.objectRef?.name === 'example.com:audit:one' && e.stage === 'ResponseComplete');
    expect(created).toEqual(events().find((e) => e.objectRef?.name === 'example.com:audit:one' && e.stage === 'ResponseComplete'));
    const everything = fs.readFileSync(logFile, 'utf8') + JSON.stringify(webhookEvents());
    for (const secret of [writerToken, nobodyToken, 'Bearer', s.running.devPki!.admin.keyPem.split('\n')[1]!]) expect(everything).not.toContain(secret);
  });

  const hasJq = fs.existsSync('/usr/bin/jq');
  (hasKubectl && hasJq ? it : it.skip)('answers "who changed this anchor" with the jq one-liner of docs/audit.md', async () => {
    const doc = fs.readFileSync(new URL('../../../docs/audit.md', import.meta.url), 'utf8');
    const filter = /```sh\njq -c '([\s\S]*?)' \\\n/.exec(doc)![1]!.replaceAll('example.com:ca:2026', 'example.com:audit:two');
    const out = await new Promise<string>((resolve, reject) =>
      execFile('/usr/bin/jq', ['-c', filter, logFile], (err, stdout) => (err ? reject(err) : resolve(String(stdout)))),
    );
    const rows = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => [r.user, r.as, r.verb, r.code, r.signer])).toEqual([
      ['writer', 'alice', 'patch', 201, 'example.com/audit'],
      ['writer', 'alice', 'patch', 200, 'example.com/audit'],
      ['writer', 'alice', 'delete', 200, null],
    ]);
    expect(rows[0]!.from).toBe('127.0.0.1');
  });

  it('counts events on /metrics', async () => {
    const metrics = (await s.req('admin', 'GET', '/metrics')).text;
    expect(metrics).toMatch(/^apiserver_audit_event_total [1-9]\d*$/m);
    expect(metrics).toMatch(/^apiserver_audit_level_total\{level="RequestResponse"\} [1-9]/m);
  });

  it('batch mode writes every line as JSON.stringify would, reads through the slab encoder and writes with their bodies', async () => {
    const file = path.join(dir, 'batch.log');
    const b = await startServer(path.join(dir, 'batch'), [`--audit-policy-file=${path.join(dir, 'policy.yaml')}`, `--audit-log-path=${file}`, '--audit-log-mode=batch']);
    try {
      expect((await b.req('admin', 'POST', ctbPath, JSON.parse(bundle('audit-batch', pem)))).status).toBe(201);
      for (let i = 0; i < 3; i++) expect((await b.req('admin', 'GET', `${ctbPath}/audit-batch`)).status).toBe(200);
    } finally {
      // Stopping drains the background writer.
      await b.stop();
    }
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
    const evs = lines.map((l) => JSON.parse(l) as Event);
    // Byte for byte what JSON.stringify writes for the parsed event (keys in the same order, nothing escaped otherwise).
    expect(lines).toEqual(evs.map((e) => JSON.stringify(e)));
    const gets = evs.filter((e) => e.verb === 'get' && e.stage === 'ResponseComplete' && e.objectRef?.name === 'audit-batch');
    expect(gets).toHaveLength(3);
    for (const e of gets) {
      expect(e).toMatchObject({ level: 'Metadata', objectRef: { resource: 'clustertrustbundles', name: 'audit-batch' }, responseStatus: { code: 200 } });
      expect(e.requestReceivedTimestamp).toMatch(microTime);
      expect(e.stageTimestamp).toMatch(microTime);
      // The slab encoder writes the two times from their microseconds: each in its own place.
      expect(e.requestReceivedTimestamp <= e.stageTimestamp).toBe(true);
    }
    expect(new Set(gets.map((e) => e.auditID)).size).toBe(3);
    const created = evs.find((e) => e.verb === 'create' && e.stage === 'ResponseComplete' && e.objectRef?.name === 'audit-batch');
    expect(created?.requestObject).toMatchObject({ metadata: { name: 'audit-batch' } });
  });
});

describe('audit log modes when the disk is full (/dev/full)', () => {
  const hasDevFull = fs.existsSync('/dev/full');
  if (!hasDevFull) console.warn('audit.e2e: /dev/full is missing; the full-disk cases are skipped');
  const itFull = hasDevFull ? it : it.skip;
  let dir: string;
  beforeAll(() => {
    dir = tempDir('plat-audit-full-');
    // /metrics is not audited, so that it can still be read when nothing else can; nor are the
    // server's own requests (its bootstrap policy goes through the chain as system:apiserver, as
    // kube-apiserver's loopback requests do), so that the server starts on a full disk.
    fs.writeFileSync(
      path.join(dir, 'policy.yaml'),
      'apiVersion: audit.plat.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [/metrics]\n- level: None\n  users: [system:apiserver]\n- level: Metadata\n',
    );
  });

  itFull('blocking-strict stops the start when the server\'s own bootstrap requests cannot be audited', async () => {
    const everything = path.join(dir, 'everything.yaml');
    fs.writeFileSync(everything, 'apiVersion: audit.plat.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
    await expect(startServer(path.join(dir, 'strict-all'), [`--audit-policy-file=${everything}`, '--audit-log-path=/dev/full', '--audit-log-mode=blocking-strict'])).rejects.toThrow(
      /cannot reconcile the bootstrap RBAC policy: Internal error occurred: failed to store audit event/,
    );
  });

  itFull('blocking-strict refuses the request with a 500 Status when its event cannot be written', async () => {
    const s = await startServer(path.join(dir, 'strict'), [`--audit-policy-file=${path.join(dir, 'policy.yaml')}`, '--audit-log-path=/dev/full', '--audit-log-mode=blocking-strict']);
    try {
      const r = await s.req('admin', 'GET', ctbPath);
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500 });
      expect(String(r.json.message)).toContain('failed to store audit event');
      const metrics = (await s.req('admin', 'GET', '/metrics')).text;
      expect(metrics).toMatch(/^apiserver_audit_requests_rejected_total [1-9]/m);
      expect(metrics).toMatch(/^apiserver_audit_error_total\{plugin="log"\} [1-9]/m);
    } finally {
      await s.stop();
    }
  });

  itFull('blocking (the default) serves the request and counts the lost event', async () => {
    const s = await startServer(path.join(dir, 'blocking'), [`--audit-policy-file=${path.join(dir, 'policy.yaml')}`, '--audit-log-path=/dev/full']);
    try {
      expect((await s.req('admin', 'GET', ctbPath)).status).toBe(200);
      expect((await s.req('admin', 'GET', '/metrics')).text).toMatch(/^apiserver_audit_error_total\{plugin="log"\} [1-9]/m);
    } finally {
      await s.stop();
    }
  });

  it('refuses to start on an invalid policy, with Kubernetes’ field errors', async () => {
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n');
    await expect(startServer(path.join(dir, 'bad'), [`--audit-policy-file=${bad}`, '--audit-log-path=-'])).rejects.toThrow(
      /--audit-policy-file: invalid configuration in .*bad\.yaml:\n {2}rules\[0\]\.level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"/,
    );
  });
});
