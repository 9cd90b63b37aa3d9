#!/usr/bin/env node
// What reading a new connection's client certificate costs a node:tls server, by the call that
// reads it, once per connection as a server does (a repeated call on one connection would not pay
// what the first one does): getPeerCertificate(true) (the legacy object with its chain, what
// @plat/server read before), getPeerCertificate() (the leaf's legacy object alone) and
// getPeerX509Certificate() with its issuerCertificate chain walked for the SHA-256 fingerprints
// (what @plat/server and the x509 authenticator read now). For two clients: one that sends its leaf
// and the CA (node's TLS client appends the issuer it finds in its `ca` option) and one that sends
// the leaf alone (Go clients such as kubectl, for a kubeconfig holding only the client certificate).
//
//   node tools/bench/apiserver/peer-certificate.mjs [--connections 600]
//
// Prints the median and 10th percentile µs of each call per connection (the calls take turns over
// the connections). One process, loopback; certificates (EC P-256, as the dev PKI's) made with
// `openssl` in a temporary directory.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { benchFlags } from '../lib/apiserver-harness.mjs';

const { flag } = benchFlags();
const total = Number(flag('connections', '600'));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-peer-'));
const file = (name) => path.join(dir, name);
const openssl = (...args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'ignore'] });
const ext = (name, text) => (fs.writeFileSync(file(name), text), file(name));
try {
  for (const name of ['ca', 'server', 'client']) openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file(`${name}.key`));
  openssl('req', '-x509', '-new', '-key', file('ca.key'), '-subj', '/CN=bench-ca', '-days', '2', '-out', file('ca.crt'), '-addext', 'basicConstraints=critical,CA:TRUE');
  const issue = (name, subject, extensions) => {
    openssl('req', '-new', '-key', file(`${name}.key`), '-subj', subject, '-out', file(`${name}.csr`));
    openssl('x509', '-req', '-in', file(`${name}.csr`), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-days', '2', '-extfile', extensions, '-out', file(`${name}.crt`));
  };
  issue('server', '/CN=127.0.0.1', ext('server.ext', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n'));
  issue('client', '/O=system:masters/CN=bench-admin', ext('client.ext', 'extendedKeyUsage=clientAuth\n'));
} catch (err) {
  console.error(`peer-certificate.mjs needs openssl to make its certificates: ${err.message}`);
  process.exit(2);
}
const read = (name) => fs.readFileSync(file(name));

const calls = {
  'getPeerCertificate(true)': (s) => {
    const prints = [];
    for (let c = s.getPeerCertificate(true); c && c.raw && !prints.includes(c.fingerprint256); c = c.issuerCertificate) prints.push(c.fingerprint256);
    return prints.join('/');
  },
  'getPeerCertificate()': (s) => s.getPeerCertificate().fingerprint256,
  'getPeerX509Certificate() + chain fingerprints': (s) => {
    const prints = [];
    for (let c = s.getPeerX509Certificate(); c && prints.length < 16; c = c.issuerCertificate) prints.push(c.fingerprint256);
    return prints.join('/');
  },
};
const names = Object.keys(calls);

async function measure(sendsCA) {
  const times = Object.fromEntries(names.map((n) => [n, []]));
  let turn = 0;
  const server = tls.createServer({ cert: read('server.crt'), key: read('server.key'), ca: read('ca.crt'), requestCert: true, rejectUnauthorized: false }, (socket) => {
    const name = names[turn++ % names.length];
    const started = process.hrtime.bigint();
    calls[name](socket);
    times[name].push(Number(process.hrtime.bigint() - started) / 1000);
    socket.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  // Without `ca`, node's client finds no issuer to append: it sends the leaf alone (and does not verify the server: loopback).
  const client = { cert: read('client.crt'), key: read('client.key'), ...(sendsCA ? { ca: read('ca.crt'), checkServerIdentity: () => undefined } : { rejectUnauthorized: false }) };
  for (let i = 0; i < total; i++) {
    await new Promise((resolve) => {
      const c = tls.connect({ port, host: '127.0.0.1', ...client });
      c.on('error', resolve);
      c.on('close', resolve);
      c.resume();
    });
  }
  server.close();
  console.log(`client sends ${sendsCA ? 'leaf + CA (node)' : 'leaf alone (Go, kubectl)'}:`);
  for (const n of names) {
    // The first connections warm the JIT up.
    const t = times[n].slice(10).sort((a, b) => a - b);
    console.log(`  ${n.padEnd(48)} median ${t[t.length >> 1].toFixed(1)} µs, p10 ${t[Math.floor(t.length / 10)].toFixed(1)} µs`);
  }
}

try {
  await measure(true);
  await measure(false);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
