import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEgressSelectorConfiguration } from './egress-selector.js';

const header = 'apiVersion: apiserver.plat.io/v1beta1\nkind: EgressSelectorConfiguration\n';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plat-egress-'));
  for (const f of ['ca.crt', 'client.crt', 'client.key']) writeFileSync(join(dir, f), 'x');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function result(yaml: string) {
  return loadEgressSelectorConfiguration(header + yaml, { cwd: dir });
}
function errorsOf(yaml: string): string[] {
  const r = result(yaml);
  return r.ok ? [] : r.errors.map(String);
}
const sel = (name: string, connection: string) => `- name: ${name}\n  connection:\n${connection}`;
const direct = '    proxyProtocol: Direct\n';
const tcp = (url: string, tls = '') => `    proxyProtocol: HTTPConnect\n    transport:\n      tcp:\n        url: ${url}\n${tls}`;
const uds = (protocol: string, name: string) => `    proxyProtocol: ${protocol}\n    transport:\n      uds:\n        udsName: ${name}\n`;
const tls = (fields: Record<string, string>) =>
  `        tlsConfig:\n${Object.entries(fields)
    .map(([k, v]) => `          ${k}: ${v}\n`)
    .join('')}`;

describe('EgressSelectorConfiguration', () => {
  it('loads selections, resolving relative TLS files against cwd', () => {
    const r = result(
      `egressSelections:\n${sel('cluster', tcp('https://konnectivity.example:8131', tls({ caBundle: 'ca.crt', clientCert: 'client.crt', clientKey: `${dir}/client.key`, tlsServerName: 'konnectivity' })))}${sel('etcd', direct)}${sel('controlplane', uds('GRPC', '/run/konnectivity.sock'))}`,
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.warnings).toEqual([]);
    expect(r.config.egressSelections).toEqual([
      {
        name: 'cluster',
        connection: {
          proxyProtocol: 'HTTPConnect',
          transport: {
            tcp: {
              url: 'https://konnectivity.example:8131',
              tlsConfig: { caBundle: join(dir, 'ca.crt'), clientCert: join(dir, 'client.crt'), clientKey: join(dir, 'client.key'), tlsServerName: 'konnectivity' },
            },
          },
        },
      },
      { name: 'etcd', connection: { proxyProtocol: 'Direct' } },
      { name: 'controlplane', connection: { proxyProtocol: 'GRPC', transport: { uds: { udsName: '/run/konnectivity.sock' } } } },
    ]);
  });

  it('accepts master with a deprecation warning and loads it as controlplane', () => {
    const r = result(`egressSelections:\n${sel('master', direct)}`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.warnings).toEqual(['egressSelections[0].name: "master" is deprecated, use "controlplane"']);
    expect(r.config.egressSelections[0]!.name).toBe('controlplane');
  });

  it('checks names: supported, unique, not both master and controlplane', () => {
    expect(errorsOf(`egressSelections:\n${sel('nodes', direct)}`)).toEqual([
      'egressSelections[0].name: Unsupported value: "nodes": supported values: "cluster", "controlplane", "etcd", "master"',
    ]);
    expect(errorsOf(`egressSelections:\n- connection:\n${direct}`)).toEqual(['egressSelections[0].name: Required value']);
    expect(errorsOf(`egressSelections:\n${sel('etcd', direct)}${sel('etcd', direct)}`)).toEqual(['egressSelections[1].name: Duplicate value: "etcd"']);
    expect(errorsOf(`egressSelections:\n${sel('controlplane', direct)}${sel('master', direct)}`)).toEqual([
      'egressSelections[1].name: Duplicate value: "master": "master" and "controlplane" name the same egress selection',
    ]);
  });

  it('checks the protocol and when a transport is needed', () => {
    expect(errorsOf(`egressSelections:\n${sel('etcd', '    proxyProtocol: SOCKS5\n')}`)).toEqual([
      'egressSelections[0].connection.proxyProtocol: Unsupported value: "SOCKS5": supported values: "Direct", "HTTPConnect", "GRPC"',
    ]);
    expect(errorsOf('egressSelections:\n- name: etcd\n')).toEqual(['egressSelections[0].connection.proxyProtocol: Required value']);
    expect(errorsOf(`egressSelections:\n${sel('etcd', `${direct}    transport:\n      uds:\n        udsName: /x\n`)}`)).toEqual([
      'egressSelections[0].connection.transport: Forbidden: Transport config should be absent for direct connect',
    ]);
    expect(errorsOf(`egressSelections:\n${sel('cluster', '    proxyProtocol: HTTPConnect\n')}`)).toEqual([
      'egressSelections[0].connection.transport: Required value: transport must be set for HTTPConnect',
    ]);
    expect(errorsOf(`egressSelections:\n${sel('cluster', '    proxyProtocol: GRPC\n')}`)).toEqual([
      'egressSelections[0].connection.transport: Required value: transport must be set for GRPC',
    ]);
  });

  it('requires exactly one of tcp or uds, and uds for GRPC', () => {
    expect(errorsOf(`egressSelections:\n${sel('cluster', '    proxyProtocol: HTTPConnect\n    transport: {}\n')}`)).toEqual([
      'egressSelections[0].connection.transport: Required value: One of TCP or UDS must be set',
    ]);
    expect(
      errorsOf(`egressSelections:\n${sel('cluster', '    proxyProtocol: HTTPConnect\n    transport:\n      tcp: {url: "http://p:1"}\n      uds: {udsName: /s}\n')}`),
    ).toEqual(['egressSelections[0].connection.transport: Forbidden: TCP and UDS cannot both be set']);
    expect(errorsOf(`egressSelections:\n${sel('cluster', '    proxyProtocol: GRPC\n    transport:\n      tcp: {url: "http://p:1"}\n')}`)).toEqual([
      'egressSelections[0].connection.transport.tcp: Forbidden: TCP transport is not supported with GRPC',
      'egressSelections[0].connection.transport.uds: Required value: UDS must be set with GRPC',
    ]);
  });

  it('checks tcp URLs and TLS settings', () => {
    const at = (url: string, t = '') => errorsOf(`egressSelections:\n${sel('cluster', tcp(url, t))}`);
    expect(at('http://proxy.example:8131')).toEqual([]);
    expect(at('tcp://proxy.example:8131')).toEqual([
      'egressSelections[0].connection.transport.tcp.url: Invalid value: "tcp://proxy.example:8131": supported connection protocols are http:// and https://',
    ]);
    expect(at('http://proxy.example')).toEqual([
      'egressSelections[0].connection.transport.tcp.url: Invalid value: "http://proxy.example": must be of the form scheme://host:port',
    ]);
    expect(at('""')).toEqual(['egressSelections[0].connection.transport.tcp.url: Required value']);
    expect(at('http://proxy.example:1', tls({ caBundle: 'ca.crt' }))).toEqual([
      'egressSelections[0].connection.transport.tcp.tlsConfig: Forbidden: TLSConfig config should not be present when using HTTP',
    ]);
    expect(at('http://proxy.example:1', tls({ caBundle: '""', clientCert: '""' }))).toEqual([]);
    expect(at('https://proxy.example:443')).toEqual([
      'egressSelections[0].connection.transport.tcp.tlsConfig: Required value: TLSConfig must be present when using HTTPS',
    ]);
    expect(at('https://proxy.example:443', tls({ caBundle: 'nope.crt' }))).toEqual([
      'egressSelections[0].connection.transport.tcp.tlsConfig.caBundle: Invalid value: "nope.crt": TLS config ca bundle does not exist',
      'egressSelections[0].connection.transport.tcp.tlsConfig.clientCert: Required value: Using TLS requires clientCert',
      'egressSelections[0].connection.transport.tcp.tlsConfig.clientKey: Required value: Using TLS requires clientKey',
    ]);
    expect(at('https://proxy.example:443', tls({ clientCert: 'missing.crt', clientKey: 'missing.key' }))).toEqual([
      'egressSelections[0].connection.transport.tcp.tlsConfig.clientCert: Invalid value: "missing.crt": TLS client cert does not exist',
      'egressSelections[0].connection.transport.tcp.tlsConfig.clientKey: Invalid value: "missing.key": TLS client key does not exist',
    ]);
    expect(at('https://proxy.example:443', tls({ clientCert: 'client.crt', clientKey: 'client.key' }))).toEqual([]);
  });

  it('checks udsName: required, absolute, no unix:// prefix', () => {
    expect(errorsOf(`egressSelections:\n${sel('cluster', uds('HTTPConnect', '""'))}`)).toEqual([
      'egressSelections[0].connection.transport.uds.udsName: Required value: UDSName should be present for UDS connections',
    ]);
    expect(errorsOf(`egressSelections:\n${sel('cluster', uds('HTTPConnect', 'unix:///run/k.sock'))}`)).toEqual([
      'egressSelections[0].connection.transport.uds.udsName: Invalid value: "unix:///run/k.sock": must be a socket path without the unix:// prefix',
    ]);
    expect(errorsOf(`egressSelections:\n${sel('cluster', uds('GRPC', 'run/k.sock'))}`)).toEqual([
      'egressSelections[0].connection.transport.uds.udsName: Invalid value: "run/k.sock": must be an absolute path',
    ]);
  });

  it('rejects an empty file and decodes strictly', () => {
    const empty = loadEgressSelectorConfiguration('');
    expect(empty.ok).toBe(false);
    if (!empty.ok) expect(empty.errors.map(String)).toEqual(['the file is empty: an EgressSelectorConfiguration needs apiVersion, kind and egressSelections']);
    expect(errorsOf(`egressSelections:\n${sel('etcd', `${direct}    proxyprotocol: Direct\n`)}`)).toEqual([
      'unknown field "egressSelections[0].connection.proxyprotocol"',
    ]);
  });
});
