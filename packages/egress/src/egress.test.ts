import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { Registry } from 'prom-client';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
  type PemKeyPair,
} from '@plat/x509';
import { startConnectProxy, startKonnectivityServer, type TestProxy } from './testing.js';
import {
  EgressDialError,
  EgressSelector,
  GrpcTunnelDialer,
  HttpConnectDialer,
  createEgressAgent,
  readEgressTlsMaterial,
} from './index.js';

let dir: string;
let ca: PemKeyPair;
let serving: PemKeyPair;
let client: PemKeyPair;
let target: https.Server;
let targetPort: number;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'egress-'));
  ca = await createCertificateAuthority({ commonName: 'egress-test-ca' });
  serving = await issueServingCertificate(ca, { commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  client = await issueClientCertificate(ca, { commonName: 'apiserver', organizations: ['system:masters'] });
  target = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    res.end(`hello ${req.url}`);
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetPort = (target.address() as net.AddressInfo).port;
});

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await new Promise<void>((resolve) => target.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

async function getThrough(agentDialer: Parameters<typeof createEgressAgent>[0], host = 'localhost') {
  const agent = createEgressAgent(agentDialer, { ca: ca.certPem });
  try {
    const res = await request(`https://${host}:${targetPort}/through`, { dispatcher: agent });
    return { status: res.statusCode, body: await res.body.text() };
  } finally {
    await agent.close();
  }
}

describe('HTTPConnect', () => {
  let plain: TestProxy;
  beforeAll(async () => {
    plain = await startConnectProxy();
    cleanups.push(() => plain.close());
  });

  it('tunnels an https request over a plain http:// proxy, TLS to the target inside the tunnel', async () => {
    const dialer = new HttpConnectDialer('cluster', { kind: 'tcp', url: new URL(plain.url) });
    expect(await getThrough(dialer)).toEqual({ status: 200, body: 'hello /through' });
    expect(plain.connects).toContain(`localhost:${targetPort}`);
  });

  it('uses mutual TLS to an https:// proxy and fails clearly without a client certificate', async () => {
    const tlsProxy = await startConnectProxy({
      tls: { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true },
    });
    cleanups.push(() => tlsProxy.close());
    const url = new URL(tlsProxy.url.replace('127.0.0.1', 'localhost'));
    const good = new HttpConnectDialer('controlplane', {
      kind: 'tcp',
      url,
      tls: { ca: ca.certPem, cert: client.certPem, key: client.keyPem },
    });
    expect(await getThrough(good)).toEqual({ status: 200, body: 'hello /through' });

    const noCert = new HttpConnectDialer('controlplane', { kind: 'tcp', url, tls: { ca: ca.certPem } });
    const err = await noCert.dial('localhost', targetPort, { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EgressDialError);
    expect((err as Error).message).toMatch(new RegExp(`^egress "controlplane" via https://localhost:${url.port}: `));
  });

  it('dials the proxy over a unix socket', async () => {
    const udsProxy = await startConnectProxy({ unixPath: path.join(dir, 'proxy.sock') });
    cleanups.push(() => udsProxy.close());
    const dialer = new HttpConnectDialer('cluster', { kind: 'uds', path: udsProxy.url });
    expect(await getThrough(dialer)).toEqual({ status: 200, body: 'hello /through' });
    expect(udsProxy.connects).toEqual([`localhost:${targetPort}`]);
  });

  it('names the selection and the proxy when the proxy refuses the CONNECT', async () => {
    const refusing = await startConnectProxy({ refuseWith: 407 });
    cleanups.push(() => refusing.close());
    const dialer = new HttpConnectDialer('controlplane', { kind: 'tcp', url: new URL(refusing.url) });
    await expect(dialer.dial('localhost', targetPort)).rejects.toThrow(
      `egress "controlplane" via ${refusing.url}: CONNECT returned 407`,
    );
  });

  it('reports an unreachable proxy', async () => {
    const dialer = new HttpConnectDialer('etcd', { kind: 'tcp', url: new URL('http://127.0.0.1:1') });
    await expect(dialer.dial('localhost', targetPort)).rejects.toThrow(
      /^egress "etcd" via http:\/\/127\.0\.0\.1:1: connecting to the proxy: connect ECONNREFUSED/,
    );
  });
});

const tinyproxyBin = ['/usr/bin/tinyproxy', '/usr/sbin/tinyproxy'].find((p) => fs.existsSync(p));
const describeTinyproxy = tinyproxyBin ? describe : describe.skip;
if (!tinyproxyBin) console.warn('tinyproxy is not installed (Debian package tinyproxy): skipping the tinyproxy tests');

describeTinyproxy('HTTPConnect through Debian tinyproxy', () => {
  let proc: ChildProcess;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    const conf = path.join(dir, 'tinyproxy.conf');
    fs.writeFileSync(
      conf,
      [`Port ${port}`, 'Listen 127.0.0.1', 'Timeout 30', 'MaxClients 20', 'Allow 127.0.0.1', `ConnectPort ${targetPort}`, 'LogLevel Critical', ''].join('\n'),
    );
    proc = spawn(tinyproxyBin!, ['-d', '-c', conf], { stdio: 'ignore' });
    await waitForPort(port);
  });
  afterAll(() => {
    proc.kill('SIGKILL');
  });

  it('reaches an https target only through tinyproxy', async () => {
    const selector = new EgressSelector({
      egressSelections: [
        { name: 'cluster', connection: { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: `http://127.0.0.1:${port}` } } } },
      ],
    });
    expect(await getThrough(selector.dialer('cluster'))).toEqual({ status: 200, body: 'hello /through' });
  });

  it('fails with the proxy status when tinyproxy refuses the port', async () => {
    const dialer = new HttpConnectDialer('cluster', { kind: 'tcp', url: new URL(`http://127.0.0.1:${port}`) });
    await expect(dialer.dial('127.0.0.1', 1)).rejects.toThrow(`egress "cluster" via http://127.0.0.1:${port}: CONNECT returned 403`);
  });
});

describe('GRPC (Konnectivity) tunnel over a unix socket', () => {
  it('tunnels an https request and reports a failed dial from the tunnel server', async () => {
    const uds = path.join(dir, 'konnectivity.sock');
    const tunnelServer = await startKonnectivityServer(uds);
    cleanups.push(() => tunnelServer.close());
    const dialer = new GrpcTunnelDialer('cluster', uds);
    cleanups.push(() => dialer.close());
    expect(await getThrough(dialer)).toEqual({ status: 200, body: 'hello /through' });
    expect(await getThrough(dialer)).toEqual({ status: 200, body: 'hello /through' });
    expect(tunnelServer.dials).toEqual([`localhost:${targetPort}`, `localhost:${targetPort}`]);
    await expect(dialer.dial('127.0.0.1', 1, { timeoutMs: 5000 })).rejects.toThrow(
      new RegExp(`^egress "cluster" via grpc\\+unix://${uds.replace(/[.]/g, '\\.')}: dial 127\\.0\\.0\\.1:1: connect ECONNREFUSED`),
    );
  });
});

describe('EgressSelector', () => {
  it('maps master to controlplane with a warning, dials directly where nothing is configured, and counts dials', async () => {
    const plain = await startConnectProxy();
    cleanups.push(() => plain.close());
    const warnings: string[] = [];
    const registry = new Registry();
    const selector = new EgressSelector(
      { egressSelections: [{ name: 'master', connection: { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: plain.url } } } }] },
      { registry, onWarning: (w) => warnings.push(w) },
    );
    expect(warnings).toEqual(['egress selection name "master" is deprecated, use "controlplane"']);
    expect(selector.dialer('controlplane').via).toBe(plain.url);
    expect(selector.dialer('etcd').via).toBe('direct');
    expect(await getThrough(selector.dialer('controlplane'))).toEqual({ status: 200, body: 'hello /through' });
    expect(await getThrough(selector.dialer('etcd'))).toEqual({ status: 200, body: 'hello /through' });
    await expect(selector.dialer('cluster').dial('127.0.0.1', 1)).rejects.toThrow(/ECONNREFUSED/);
    const metrics = await registry.metrics();
    expect(metrics).toContain('apiserver_egress_dialer_dial_start_total{selection="controlplane",protocol="HTTPConnect"} 1');
    expect(metrics).toContain('apiserver_egress_dialer_dial_start_total{selection="etcd",protocol="Direct"} 1');
    expect(metrics).toContain('apiserver_egress_dialer_dial_failure_count{selection="cluster",protocol="Direct"} 1');
  });

  it('reads TLS files relative to the working directory', async () => {
    fs.writeFileSync(path.join(dir, 'ca.crt'), ca.certPem);
    fs.writeFileSync(path.join(dir, 'client.crt'), client.certPem);
    fs.writeFileSync(path.join(dir, 'client.key'), client.keyPem);
    const material = await readEgressTlsMaterial(
      {
        egressSelections: [
          {
            name: 'cluster',
            connection: {
              proxyProtocol: 'HTTPConnect',
              transport: { tcp: { url: 'https://proxy:8131', tlsConfig: { caBundle: 'ca.crt', clientCert: 'client.crt', clientKey: 'client.key', tlsServerName: 'proxy.internal' } } },
            },
          },
        ],
      },
      dir,
    );
    expect(material.cluster?.ca?.toString()).toBe(ca.certPem);
    expect(material.cluster?.key?.toString()).toBe(client.keyPem);
    expect(material.cluster?.servername).toBe('proxy.internal');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`);
}
