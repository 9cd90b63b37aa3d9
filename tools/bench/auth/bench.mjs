#!/usr/bin/env node
// Cost of JWT authentication and of a webhook authorizer on GET throughput, as issue 6 asks.
//
//   node tools/bench/auth/bench.mjs [--duration 3] [--rounds 5] [--connections 16] [--json]
//
// It bundles apps/apiserver with esbuild (same options as the Nx build, through the e2e global
// setup) and starts ONE server as a child process (--storage-backend=memory) with
//   --authentication-config: a JWT authenticator for an OIDC provider served by this script over
//     HTTPS (discovery + JWKS, RS256), with two CEL claim mappings (username and groups expressions);
//   --authorization-config: a Webhook authorizer (SubjectAccessReview v1 over HTTPS, served by this
//     script; authorizedTTL 5m) after the built-in rules.
// autocannon then drives GET of one ClusterTrustBundle (HTTP/1.1 keep-alive) three ways, in turn,
// --rounds times (the order rotates each round so machine noise hits all alike):
//   (a) cert    — the development admin's client certificate (the baseline);
//   (b) jwt     — a bearer JWT: verified, then answered from the per-token cache (10 s at a time);
//   (c) webhook — the same JWT plus `Impersonate-User: bench-reader`. The built-in rules allow every
//                 authenticated user to read ClusterTrustBundles before any configured authorizer
//                 is asked, so a plain GET never reaches the webhook; the impersonation check
//                 (verb impersonate on users) is decided by the webhook, from its warm cache, on
//                 every request. The webhook's call count is printed: it stays at the warm-up's.
// Figures: requests per second and requests per server CPU second (from /proc), each as a ratio of (a).
// Targets: (b) >= 0.7 and (c) >= 0.6 of (a).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { Agent, request } from 'undici';
import YAML from 'yaml';
import { adminCredentials, benchFlags, buildApiServerBundle, cannonWith, createBenchBundle, measuredSlice, mergeSlices, startApiServer } from '../lib/apiserver-harness.mjs';


const { flag, has } = benchFlags();
const duration = Number(flag('duration', '3'));
const rounds = Number(flag('rounds', '5'));
const connections = Number(flag('connections', '16'));
const cannon = cannonWith({ connections, duration });
const asJson = has('--json');
const log = (...m) => {
  if (!asJson) console.error(...m);
};

const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';

/** A self-signed serving certificate for 127.0.0.1 / localhost (openssl; it is its own trust anchor). */
function selfSigned(dir, name) {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.crt`);
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-keyout', key, '-out', cert, '-subj', `/CN=${name}`, '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ], { stdio: 'ignore' });
  return { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') };
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

async function startOidcProvider(tls) {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  let url = '';
  const server = https.createServer(tls, (req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/keys` }));
    else if (req.url === '/keys') res.end(JSON.stringify({ keys: [jwk] }));
    else res.writeHead(404).end('{}');
  });
  url = `https://localhost:${await listen(server)}`;
  return {
    url,
    sign: (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'bench', typ: 'JWT' }).sign(privateKey),
    close: () => new Promise((r) => server.close(r)),
  };
}

async function startWebhook(tls) {
  let calls = 0;
  const server = https.createServer(tls, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls++;
      const review = JSON.parse(body);
      const a = review.spec.resourceAttributes ?? {};
      const allowed = a.verb === 'impersonate' && a.resource === 'users' && review.spec.user === 'bench:jwt-user';
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: { allowed } }));
    });
  });
  const port = await listen(server);
  return { url: `https://127.0.0.1:${port}/authorize`, calls: () => calls, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

async function main() {
  const bundle = await buildApiServerBundle();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-bench-auth-'));
  const tls = selfSigned(dir, 'localhost');
  const idp = await startOidcProvider(tls);
  const webhook = await startWebhook(tls);
  const authn = path.join(dir, 'authn.yaml');
  fs.writeFileSync(
    authn,
    YAML.stringify({
      apiVersion: 'apiserver.plat.io/v1beta1',
      kind: 'AuthenticationConfiguration',
      jwt: [
        {
          issuer: { url: idp.url, audiences: ['plat'], certificateAuthority: tls.cert },
          claimMappings: {
            username: { expression: "'bench:' + claims.sub" },
            groups: { expression: "claims.roles.map(r, 'role:' + r)" },
          },
        },
      ],
    }),
  );
  const platConfig = path.join(dir, 'webhook.conf');
  fs.writeFileSync(
    platConfig,
    YAML.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'w', cluster: { server: webhook.url, 'certificate-authority-data': Buffer.from(tls.cert).toString('base64') } }],
      users: [{ name: 'w', user: {} }],
      contexts: [{ name: 'w', context: { cluster: 'w', user: 'w' } }],
      'current-context': 'w',
    }),
  );
  const authz = path.join(dir, 'authz.yaml');
  fs.writeFileSync(
    authz,
    YAML.stringify({
      apiVersion: 'apiserver.plat.io/v1beta1',
      kind: 'AuthorizationConfiguration',
      authorizers: [
        {
          type: 'Webhook',
          name: 'bench',
          webhook: {
            timeout: '3s',
            authorizedTTL: '5m',
            unauthorizedTTL: '30s',
            subjectAccessReviewVersion: 'v1',
            matchConditionSubjectAccessReviewVersion: 'v1',
            failurePolicy: 'Deny',
            connectionInfo: { type: 'PlatConfigFile', platConfigFile: platConfig },
          },
        },
      ],
    }),
  );
  const dataDir = path.join(dir, 'data');
  const server = await startApiServer({ bundle, dataDir, args: ['--storage-backend=memory', `--authentication-config=${authn}`, `--authorization-config=${authz}`] });
  try {
    const url = server.url;
    const creds = adminCredentials(path.join(dataDir, 'admin.conf'));
    const dispatcher = new Agent({ connect: creds });
    // Wait until the JWT authenticator has its keys (a token is accepted; /readyz does not wait for
    // issuers, as in kube-apiserver), then create the bundle to GET.
    const probe = await idp.sign({ iss: idp.url, aud: 'plat', sub: 'probe', roles: [], exp: Math.floor(Date.now() / 1000) + 60 });
    const plain = new Agent({ connect: { ca: creds.ca } });
    for (let i = 0; ; i++) {
      const res = await request(`${url}/version`, { dispatcher: plain, headers: { authorization: `Bearer ${probe}` } });
      await res.body.text();
      if (res.statusCode === 200) break;
      if (i > 200) throw new Error('the JWT issuer keys did not load');
      await new Promise((r) => setTimeout(r, 50));
    }
    await plain.close();
    await createBenchBundle(url, dispatcher, creds);
    await dispatcher.close();

    const now = Math.floor(Date.now() / 1000);
    const token = await idp.sign({ iss: idp.url, aud: 'plat', sub: 'jwt-user', roles: ['dev', 'ops'], iat: now, exp: now + 3600 });
    const target = `${url}${collection}/bench`;
    const kinds = [
      { name: 'cert', opts: { tlsOptions: { ca: creds.ca, cert: creds.cert, key: creds.key }, headers: { accept: 'application/json' } } },
      { name: 'jwt', opts: { tlsOptions: { ca: creds.ca }, headers: { accept: 'application/json', authorization: `Bearer ${token}` } } },
      {
        name: 'webhook',
        opts: { tlsOptions: { ca: creds.ca }, headers: { accept: 'application/json', authorization: `Bearer ${token}`, 'impersonate-user': 'bench-reader' } },
      },
    ].map((k) => ({ ...k, runs: [] }));
    // Warm-up: fills the token cache and the webhook's cache; every answer must be 200.
    for (const k of kinds) {
      const r = await cannon({ url: target, duration: 1, ...k.opts });
      if (r.non2xx > 0 || r['2xx'] === 0) throw new Error(`warm-up of ${k.name}: ${r.non2xx} non-2xx answers of ${r.requests.total}`);
    }
    const webhookCallsAfterWarmUp = webhook.calls();
    for (let r = 0; r < rounds; r++) {
      for (const k of [...kinds.slice(r % kinds.length), ...kinds.slice(0, r % kinds.length)]) {
        await new Promise((res) => setTimeout(res, 500));
        k.runs.push(await measuredSlice(cannon, server.child.pid, { url: target, ...k.opts }));
      }
      log(`round ${r + 1}/${rounds}: ${kinds.map((k) => `${k.name} ${Math.round(k.runs.at(-1).total / k.runs.at(-1).seconds)} req/s`).join(', ')}`);
    }
    const out = {};
    for (const k of kinds) {
      out[k.name] = mergeSlices(k.runs);
    }
    for (const name of ['jwt', 'webhook']) {
      out[name].ratio = Number((out[name].rps / out.cert.rps).toFixed(3));
      out[name].cpuRatio = Number((out[name].perCpuSecond / out.cert.perCpuSecond).toFixed(3));
    }
    out.webhookCalls = { afterWarmUp: webhookCallsAfterWarmUp, atEnd: webhook.calls() };
    out.settings = { duration, rounds, connections, node: process.version, cpus: os.cpus().length };
    if (asJson) {
      console.log(JSON.stringify(out, null, 2));
    } else {
      console.log('| credential | GET req/s | ÷ (a) | req per CPU-s | ÷ (a) | p99 ms | non-2xx | errors |');
      console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
      const label = { cert: '(a) client certificate', jwt: '(b) JWT, 2 CEL mappings', webhook: '(c) JWT + webhook (warm cache)' };
      for (const k of kinds) {
        const o = out[k.name];
        console.log(`| ${label[k.name]} | ${o.rps} | ${o.ratio ?? 1} | ${o.perCpuSecond} | ${o.cpuRatio ?? 1} | ${o.p99ms} | ${o.non2xx} | ${o.errors} |`);
      }
      console.log(`webhook calls: ${out.webhookCalls.afterWarmUp} during warm-up, ${out.webhookCalls.atEnd} at the end`);
      console.log(`target (b) >= 0.7 of (a): ${out.jwt.ratio >= 0.7 ? 'met' : 'NOT met'} (CPU ratio ${out.jwt.cpuRatio})`);
      console.log(`target (c) >= 0.6 of (a): ${out.webhook.ratio >= 0.6 ? 'met' : 'NOT met'} (CPU ratio ${out.webhook.cpuRatio})`);
    }
  } finally {
    await server.stop();
    await idp.close();
    await webhook.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
