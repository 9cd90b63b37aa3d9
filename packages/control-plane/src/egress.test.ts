import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { WebhookAuthorizer, type Attributes, type WebhookConnection } from '@plat/auth';
import { openStorage } from '@plat/storage';
import { createTracing, createMetricsRegistry, disabledTracing } from '@plat/telemetry';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate, type PemKeyPair } from '@plat/x509';
import { startConnectProxy, startKonnectivityServer, type TestProxy } from '@plat/egress/testing';
import { hasEtcd, TestEtcd } from '@plat/storage/testing';
import { loadEgressSelectorConfiguration, type EgressSelectorConfiguration } from '@plat/config';
import type { ServerLogger } from '@plat/server';
import { setupEgress, webhookAuthorizerOptions, type Egress } from './egress.js';
import { startEtcdEgress } from './etcd-egress.js';

const logs: string[] = [];
const logger: ServerLogger = {
  info: (m, f) => logs.push(`I ${m} ${JSON.stringify(f ?? {})}`),
  error: (m, f) => logs.push(`E ${m} ${JSON.stringify(f ?? {})}`),
  enabled: () => true,
};

let dir: string;
let ca: PemKeyPair;
let serving: PemKeyPair;
let apiserverClient: PemKeyPair;
let webhook: https.Server;
let webhookPort: number;
const webhookCalls: { clientCN: string; traceparent?: string }[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-egress-setup-'));
  ca = await createCertificateAuthority({ commonName: 'egress-setup-ca' });
  serving = await issueServingCertificate(ca, { commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  apiserverClient = await issueClientCertificate(ca, { commonName: 'apiserver' });
  // The webhook requires the apiserver's client certificate: the TLS options must survive the tunnel.
  webhook = https.createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    webhookCalls.push({ clientCN: String(peer.subject?.CN), traceparent: req.headers.traceparent as string | undefined });
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'authorization.plat.io/v1', kind: 'SubjectAccessReview', status: { allowed: true } }));
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
  webhookPort = (webhook.address() as net.AddressInfo).port;
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  webhookCalls.length = 0;
});

afterAll(async () => {
  await new Promise((r) => webhook.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

function writeFile(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

function egressFile(name: string, selection: string, url: string, tlsConfig?: Record<string, string>): string {
  const tls = tlsConfig ? `\n        tlsConfig:\n${Object.entries(tlsConfig).map(([k, v]) => `          ${k}: ${v}`).join('\n')}` : '';
  return writeFile(
    name,
    `apiVersion: apiserver.plat.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
- name: ${selection}
  connection:
    proxyProtocol: HTTPConnect
    transport:
      tcp:
        url: ${url}${tls}
`,
  );
}

/** An EgressSelectorConfiguration file, loaded as the apiserver loads it (relative TLS files against the test folder). */
function loadEgressConfigFile(file: string): EgressSelectorConfiguration {
  const result = loadEgressSelectorConfiguration(fs.readFileSync(file), { cwd: dir });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.config;
}

async function egressThrough(url: string, tlsConfig?: Record<string, string>, selection = 'controlplane'): Promise<Egress> {
  const file = egressFile(`egress-${Math.random().toString(36).slice(2)}.yaml`, selection, url, tlsConfig);
  const config = loadEgressConfigFile(file);
  const egress = await setupEgress(config, { cwd: dir, logger, registry: createMetricsRegistry({ defaultMetrics: false }) });
  cleanups.push(() => egress.close());
  return egress;
}

const connection = (): WebhookConnection => ({
  server: `https://127.0.0.1:${webhookPort}/authorize`,
  ca: ca.certPem,
  cert: apiserverClient.certPem,
  key: apiserverClient.keyPem,
});

function webhookAuthorizer(egress: Egress | undefined, failurePolicy: 'NoOpinion' | 'Deny' = 'NoOpinion', tracing = disabledTracing()): WebhookAuthorizer {
  const conn = connection();
  const a = new WebhookAuthorizer(
    { name: 'corp', timeoutMs: 5000, authorizedTTLMs: 0, unauthorizedTTLMs: 0, subjectAccessReviewVersion: 'v1', failurePolicy, matchConditions: [] },
    conn,
    webhookAuthorizerOptions({ egress, tracing }, conn),
  );
  cleanups.push(() => a.close());
  return a;
}

const attrs: Attributes = {
  user: { username: 'jane', groups: ['system:authenticated'] },
  verb: 'get',
  resourceRequest: true,
  apiGroup: 'certificates.plat.io',
  apiVersion: 'v1alpha1',
  resource: 'clustertrustbundles',
  subresource: '',
  namespace: '',
  name: '',
  path: '',
};

async function proxy(opts: Parameters<typeof startConnectProxy>[0] = {}): Promise<TestProxy> {
  const p = await startConnectProxy(opts);
  cleanups.push(() => p.close());
  return p;
}

describe('webhook authorizer through the controlplane egress selection', () => {
  it('reaches the webhook only through an HTTP CONNECT proxy, with the webhook TLS (client certificate) end to end', async () => {
    const p = await proxy();
    const a = webhookAuthorizer(await egressThrough(p.url));
    expect(await a.authorize(attrs)).toEqual({ decision: 'Allow', reason: '' });
    expect(p.connects).toEqual([`127.0.0.1:${webhookPort}`]);
    expect(webhookCalls).toEqual([{ clientCN: 'apiserver', traceparent: undefined }]);
  });

  it('fails with an error naming the selection and the proxy when the proxy refuses (failure policy applies)', async () => {
    const p = await proxy({ refuseWith: 407 });
    const egress = await egressThrough(p.url);
    const noOpinion = await webhookAuthorizer(egress).authorize(attrs);
    expect(noOpinion).toEqual({ decision: 'NoOpinion', reason: `authorizer "corp": egress "controlplane" via ${p.url}: CONNECT returned 407` });
    const deny = await webhookAuthorizer(egress, 'Deny').authorize(attrs);
    expect(deny).toEqual({ decision: 'Deny', reason: `authorizer "corp": egress "controlplane" via ${p.url}: CONNECT returned 407` });
    expect(webhookCalls).toEqual([]);
  });

  it('uses mutual TLS to an https:// proxy with the caBundle, clientCert and clientKey files of the configuration', async () => {
    const proxyServing = await issueServingCertificate(ca, { commonName: 'localhost', dnsNames: ['localhost'] });
    const p = await proxy({ tls: { cert: proxyServing.certPem, key: proxyServing.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true } });
    const proxyClient = await issueClientCertificate(ca, { commonName: 'egress-client' });
    writeFile('proxy-ca.pem', ca.certPem);
    writeFile('proxy-client.pem', proxyClient.certPem);
    writeFile('proxy-client-key.pem', proxyClient.keyPem);
    const url = p.url.replace('127.0.0.1', 'localhost');
    // Relative paths resolve against the directory the server runs in (cwd).
    const egress = await egressThrough(url, { caBundle: 'proxy-ca.pem', clientCert: 'proxy-client.pem', clientKey: 'proxy-client-key.pem' });
    expect(await webhookAuthorizer(egress).authorize(attrs)).toEqual({ decision: 'Allow', reason: '' });
    expect(p.connects).toEqual([`127.0.0.1:${webhookPort}`]);
  });

  it('reaches the webhook through an HTTP CONNECT proxy on a unix socket (uds transport)', async () => {
    const udsName = path.join(dir, 'connect-proxy.sock');
    const p = await proxy({ unixPath: udsName });
    const file = writeFile(
      'egress-uds.yaml',
      `apiVersion: apiserver.plat.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: controlplane\n  connection:\n    proxyProtocol: HTTPConnect\n    transport:\n      uds:\n        udsName: ${udsName}\n`,
    );
    const egress = await setupEgress(loadEgressConfigFile(file), { cwd: dir, logger });
    cleanups.push(() => egress.close());
    expect(await webhookAuthorizer(egress).authorize(attrs)).toEqual({ decision: 'Allow', reason: '' });
    expect(p.connects).toEqual([`127.0.0.1:${webhookPort}`]);
  });

  it('reaches the webhook through the Konnectivity gRPC tunnel (GRPC over uds), and names the tunnel when the dial fails', async () => {
    const udsName = path.join(dir, 'konnectivity.sock');
    const tunnel = await startKonnectivityServer(udsName);
    cleanups.push(() => tunnel.close());
    const file = writeFile(
      'egress-grpc.yaml',
      `apiVersion: apiserver.plat.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: controlplane\n  connection:\n    proxyProtocol: GRPC\n    transport:\n      uds:\n        udsName: ${udsName}\n`,
    );
    const egress = await setupEgress(loadEgressConfigFile(file), { cwd: dir, logger });
    cleanups.push(() => egress.close());
    expect(await webhookAuthorizer(egress).authorize(attrs)).toEqual({ decision: 'Allow', reason: '' });
    expect(tunnel.dials).toEqual([`127.0.0.1:${webhookPort}`]);
    expect(webhookCalls).toEqual([{ clientCN: 'apiserver', traceparent: undefined }]);
    // A webhook nothing listens on: the tunnel server's failed dial comes back with the tunnel named.
    const conn = { ...connection(), server: 'https://127.0.0.1:1/authorize' };
    const a = new WebhookAuthorizer(
      { name: 'corp', timeoutMs: 5000, authorizedTTLMs: 0, unauthorizedTTLMs: 0, subjectAccessReviewVersion: 'v1', failurePolicy: 'NoOpinion', matchConditions: [] },
      conn,
      webhookAuthorizerOptions({ egress }, conn),
    );
    cleanups.push(() => a.close());
    const result = await a.authorize(attrs);
    expect(result.decision).toBe('NoOpinion');
    expect(result.reason).toMatch(new RegExp(`^authorizer "corp": egress "controlplane" via grpc\\+unix://${udsName.replace(/[.]/g, '\\.')}: dial 127\\.0\\.0\\.1:1: `));
  });

  it('does not route the webhook when no configuration is given, or when only other selections are configured', async () => {
    const none = await setupEgress(undefined, { cwd: dir, logger });
    expect(webhookAuthorizerOptions({ egress: none }, connection())).toEqual({});
    expect(await webhookAuthorizer(none).authorize(attrs)).toEqual({ decision: 'Allow', reason: '' });
    const p = await proxy();
    const clusterOnly = await egressThrough(p.url, undefined, 'cluster');
    expect(await webhookAuthorizer(clusterOnly).authorize(attrs)).toEqual({ decision: 'Allow', reason: '' });
    expect(p.connects).toEqual([]);
    expect(clusterOnly.proxied('cluster')).toBe(true);
    expect(clusterOnly.proxied('controlplane')).toBe(false);
  });

  it('sends the traceparent of the current request span when tracing is on', async () => {
    const tracing = await createTracing({ endpoint: '127.0.0.1:1', samplingRatePerMillion: 0 }, { serviceVersion: 't', instanceId: 't' });
    cleanups.push(() => tracing.shutdown());
    const opts = webhookAuthorizerOptions({ tracing }, connection());
    expect(opts.injectHeaders).toBeInstanceOf(Function);
    expect(webhookAuthorizerOptions({ tracing: disabledTracing() }, connection()).injectHeaders).toBeUndefined();
    // Outside a request there is no span to propagate: nothing is added.
    const headers: Record<string, string> = {};
    opts.injectHeaders!(headers);
    expect(headers).toEqual({});
  });
});

const tinyproxyBin = ['/usr/bin/tinyproxy', '/usr/sbin/tinyproxy'].find((p) => fs.existsSync(p));
(tinyproxyBin ? describe : describe.skip)('webhook authorizer through Debian tinyproxy', () => {
  let proc: ChildProcess;
  let port: number;
  beforeAll(async () => {
    port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const conf = writeFile(
      'tinyproxy.conf',
      [`Port ${port}`, 'Listen 127.0.0.1', 'Timeout 30', 'MaxClients 20', 'Allow 127.0.0.1', `ConnectPort ${webhookPort}`, 'LogLevel Critical', ''].join('\n'),
    );
    proc = spawn(tinyproxyBin!, ['-d', '-c', conf], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const open = await new Promise<boolean>((resolve) => {
        const sock = net.connect(port, '127.0.0.1', () => {
          sock.destroy();
          resolve(true);
        });
        sock.on('error', () => resolve(false));
      });
      if (open) break;
      if (Date.now() > deadline) throw new Error('tinyproxy did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterAll(() => {
    proc.kill('SIGKILL');
  });

  it('allows through the proxy, and names the proxy when it refuses a port', async () => {
    const egress = await egressThrough(`http://127.0.0.1:${port}`);
    expect(await webhookAuthorizer(egress).authorize(attrs)).toEqual({ decision: 'Allow', reason: '' });
    expect(webhookCalls).toHaveLength(1);
    // tinyproxy only tunnels to ConnectPort: another port is refused with 403.
    const conn = { ...connection(), server: `https://127.0.0.1:${port + 1}/authorize` };
    const a = new WebhookAuthorizer(
      { name: 'corp', timeoutMs: 5000, authorizedTTLMs: 0, unauthorizedTTLMs: 0, subjectAccessReviewVersion: 'v1', failurePolicy: 'NoOpinion', matchConditions: [] },
      conn,
      webhookAuthorizerOptions({ egress }, conn),
    );
    cleanups.push(() => a.close());
    expect(await a.authorize(attrs)).toEqual({
      decision: 'NoOpinion',
      reason: `authorizer "corp": egress "controlplane" via http://127.0.0.1:${port}: CONNECT returned 403`,
    });
  });
});

(hasEtcd ? describe : describe.skip)('etcd client through the etcd egress selection (real etcd)', () => {
  it('opens storage through the proxy, and explains a refused tunnel', async () => {
    const etcd = new TestEtcd();
    await etcd.start();
    cleanups.push(() => etcd.destroy());
    const p = await proxy();
    const egress = await egressThrough(p.url, undefined, 'etcd');
    expect(egress.proxied('etcd')).toBe(true);
    const forward = await startEtcdEgress(egress.selector.dialer('etcd'), [etcd.url], logger);
    cleanups.push(() => forward.close());
    const storage = await openStorage({ backend: 'etcd3', servers: [etcd.url], prefix: '/egress-test', dial: forward.clientOptions });
    cleanups.push(() => storage.close());
    const obj = { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'through-proxy' } };
    await storage.create('/things/through-proxy', obj as never);
    expect((await storage.get('/things/through-proxy')).metadata?.name).toBe('through-proxy');
    expect(p.connects.length).toBeGreaterThan(0);
    expect(new Set(p.connects)).toEqual(new Set([`127.0.0.1:${etcd.clientPort}`]));

    const refusing = await proxy({ refuseWith: 403 });
    const refusedEgress = await egressThrough(refusing.url, undefined, 'etcd');
    const refusedForward = await startEtcdEgress(refusedEgress.selector.dialer('etcd'), [etcd.url], logger);
    cleanups.push(() => refusedForward.close());
    await expect(
      openStorage({ backend: 'etcd3', servers: [etcd.url], dial: { ...refusedForward.clientOptions, dialTimeout: 2000 } }),
    ).rejects.toThrow();
    expect(refusedForward.lastError()?.message).toBe(`egress "etcd" via ${refusing.url}: CONNECT returned 403`);
  });

  it('keeps the TLS handshake with etcd end to end and checks its real host name', async () => {
    // Named localhost only: reached as 127.0.0.1, the certificate check must fail.
    const etcdServing = await issueServingCertificate(ca, { commonName: 'etcd', dnsNames: ['localhost'] });
    const etcdClient = await issueClientCertificate(ca, { commonName: 'apiserver' });
    const files = {
      certFile: writeFile('etcd.pem', etcdServing.certPem),
      keyFile: writeFile('etcd-key.pem', etcdServing.keyPem),
      clientCaFile: writeFile('etcd-ca.pem', ca.certPem),
    };
    const etcd = new TestEtcd(files);
    await etcd.start();
    cleanups.push(() => etcd.destroy());
    const p = await proxy();
    const egress = await egressThrough(p.url, undefined, 'etcd');
    const servers = [`https://localhost:${etcd.clientPort}`];
    const forward = await startEtcdEgress(egress.selector.dialer('etcd'), servers, logger);
    cleanups.push(() => forward.close());
    expect(forward.clientOptions.grpcOptions['grpc.ssl_target_name_override']).toBe('localhost');
    const storage = await openStorage({
      backend: 'etcd3',
      servers,
      caFile: files.clientCaFile,
      certFile: writeFile('apiserver-etcd.pem', etcdClient.certPem),
      keyFile: writeFile('apiserver-etcd-key.pem', etcdClient.keyPem),
      dial: forward.clientOptions,
    });
    cleanups.push(() => storage.close());
    expect(await storage.currentRevision()).toBeGreaterThan(0);
    expect(new Set(p.connects)).toEqual(new Set([`localhost:${etcd.clientPort}`]));

    const byAddress = [`https://127.0.0.1:${etcd.clientPort}`];
    const wrongName = await startEtcdEgress(egress.selector.dialer('etcd'), byAddress, logger);
    cleanups.push(() => wrongName.close());
    expect(wrongName.clientOptions.grpcOptions['grpc.ssl_target_name_override']).toBe('127.0.0.1');
    await expect(
      openStorage({
        backend: 'etcd3',
        servers: byAddress,
        caFile: files.clientCaFile,
        certFile: path.join(dir, 'apiserver-etcd.pem'),
        keyFile: path.join(dir, 'apiserver-etcd-key.pem'),
        dial: { ...wrongName.clientOptions, dialTimeout: 2000 },
      }),
    ).rejects.toThrow("Hostname/IP does not match certificate's altnames: IP: 127.0.0.1");
  });

  it('refuses TLS etcd servers with different host names (one name override per client)', async () => {
    const dialer = (await setupEgress(undefined, { cwd: dir, logger })).selector.dialer('etcd');
    await expect(startEtcdEgress(dialer, ['https://a.example:2379', 'https://b.example:2379'], logger)).rejects.toThrow(
      'etcd servers through egress with TLS must share one host name (the etcd client checks one name for all servers), got a.example, b.example',
    );
  });
});
