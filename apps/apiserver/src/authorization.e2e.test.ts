import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import {
  eventually,
  replaceFile,
  startOidcProvider,
  startServer,
  startWebhook,
  tempDir,
  webhookAuthorizationConfig,
  type TestServer,
  type WebhookAnswer,
  type WebhookAuthorizerOptions,
} from '../test/auth-fixtures.js';

// The authorizer chain over real HTTPS: built-in rules, then a Webhook authorizer reached with a
// client certificate from its PlatConfig file, the attest admission through that webhook, the
// review APIs, metrics, and automatic reload of both configuration files.

const ctbPath = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
const ssar = '/apis/authorization.plat.io/v1/selfsubjectaccessreviews';
const sar = '/apis/authorization.plat.io/v1/subjectaccessreviews';
const writer = { token: 'writer-token' };
const reader = { token: 'reader-token' };

/** This suite's configuration: the webhook (2s, cached 5m/30s) for everyone but the reader, then AlwaysDeny. */
function authorizationConfig(webhookConfigFile: string, over: WebhookAuthorizerOptions = {}): string {
  return webhookAuthorizationConfig(webhookConfigFile, {
    timeout: '2s',
    authorizedTTL: '5m',
    unauthorizedTTL: '30s',
    matchConditions: ["request.user != 'reader'"],
    then: 'AlwaysDeny',
    ...over,
  });
}

/** The policy: writers create bundles and attest for example.com/one only; deleting is denied outright. */
function policy(spec: Record<string, unknown>): WebhookAnswer {
  const attrs = (spec.resourceAttributes ?? {}) as Record<string, string>;
  const groups = (spec.groups ?? spec.group ?? []) as string[];
  if (!groups.includes('writers')) return { allowed: false };
  if (attrs.resource === 'clustertrustbundles' && attrs.verb === 'create') return { allowed: true };
  if (attrs.resource === 'signers' && attrs.verb === 'attest' && attrs.name === 'example.com/one') return { allowed: true };
  if (attrs.resource === 'clustertrustbundles' && attrs.verb === 'delete') return { allowed: false, denied: true, reason: 'bundles are never deleted here' };
  return { allowed: false };
}

function bundle(name: string, signerName: string, pem: string) {
  return { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { signerName, trustBundle: pem } };
}

function unsigned(name: string, pem: string) {
  return { apiVersion: 'certificates.plat.io/v1alpha1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { trustBundle: pem } };
}

describe('webhook authorization from --authorization-config', () => {
  let dir: string;
  let webhook: Awaited<ReturnType<typeof startWebhook>>;
  let s: TestServer;
  let pem: string;
  let authzFile: string;
  beforeAll(async () => {
    dir = tempDir('plat-authz-');
    webhook = await startWebhook(dir, policy);
    authzFile = path.join(dir, 'authz.yaml');
    fs.writeFileSync(authzFile, authorizationConfig(webhook.configFile));
    const tokens = path.join(dir, 'tokens.csv');
    fs.writeFileSync(tokens, 'writer-token,writer,u1,"writers"\nreader-token,reader,u2\n');
    s = await startServer(path.join(dir, 'data'), [`--authorization-config=${authzFile}`, `--token-auth-file=${tokens}`]);
    pem = s.running.devPki!.ca.certPem;
  });
  afterAll(async () => {
    await s?.stop();
    await webhook?.close();
  });

  it('admits attest only for the signer the webhook allows', async () => {
    const one = await s.req(writer, 'POST', ctbPath, bundle('example.com:one:a', 'example.com/one', pem));
    expect(one.status).toBe(201);
    const two = await s.req(writer, 'POST', ctbPath, bundle('example.com:two:a', 'example.com/two', pem));
    expect(two.status).toBe(403);
    expect(two.json.message).toContain('example.com/two');
    const attests = webhook.calls.filter((c) => (c.spec.resourceAttributes as Record<string, string>)?.verb === 'attest');
    expect(attests.map((c) => (c.spec.resourceAttributes as Record<string, string>).name)).toEqual(
      expect.arrayContaining(['example.com/one', 'example.com/two', 'example.com/*']),
    );
    // The webhook saw the apiserver's client certificate and a v1 review.
    expect(new Set(webhook.calls.map((c) => `${c.apiVersion} ${c.clientCN}`))).toEqual(new Set(['authorization.plat.io/v1 apiserver']));
  });

  it('caches allowed answers (the same attributes reach the webhook once)', async () => {
    const createCalls = () =>
      webhook.calls.filter((c) => {
        const a = c.spec.resourceAttributes as Record<string, string> | undefined;
        return a?.verb === 'create' && a.resource === 'clustertrustbundles' && c.spec.user === 'writer';
      }).length;
    const before = createCalls();
    expect((await s.req(writer, 'POST', ctbPath, bundle('example.com:one:b', 'example.com/one', pem))).status).toBe(201);
    expect((await s.req(writer, 'POST', ctbPath, bundle('example.com:one:c', 'example.com/one', pem))).status).toBe(201);
    expect(createCalls()).toBe(before === 0 ? 1 : before);
  });

  it('passes a webhook Deny on with its reason; built-in rules and a false match condition keep requests from the webhook', async () => {
    const del = await s.req(writer, 'DELETE', `${ctbPath}/example.com:one:a`);
    expect(del.status).toBe(403);
    expect(del.json.message).toContain('bundles are never deleted here');
    const calls = webhook.calls.length;
    expect((await s.req('admin', 'DELETE', `${ctbPath}/example.com:one:b`)).status).toBe(200);
    const asReader = await s.req(reader, 'POST', ctbPath, unsigned('by-reader', pem));
    expect(asReader.status).toBe(403);
    expect(webhook.calls.length).toBe(calls);
  });

  it('answers SelfSubjectAccessReviews and SubjectAccessReviews with the chain decision', async () => {
    const can = await s.req(writer, 'POST', ssar, {
      spec: { resourceAttributes: { verb: 'create', group: 'certificates.plat.io', resource: 'clustertrustbundles' } },
    });
    expect(can.status).toBe(201);
    expect(can.json.status).toEqual({ allowed: true });
    const cannot = await s.req(reader, 'POST', ssar, { spec: { resourceAttributes: { verb: 'create', group: 'certificates.plat.io', resource: 'clustertrustbundles' } } });
    expect(cannot.json.status).toMatchObject({ allowed: false });
    // Readers may not ask about others; the admin may.
    const body = { spec: { user: 'w2', groups: ['writers'], resourceAttributes: { verb: 'attest', group: 'certificates.plat.io', resource: 'signers', name: 'example.com/two' } } };
    expect((await s.req(writer, 'POST', sar, body)).status).toBe(403);
    const answer = await s.req('admin', 'POST', sar, body);
    expect(answer.status).toBe(201);
    expect(answer.json.status).toMatchObject({ allowed: false });
    const yes = await s.req('admin', 'POST', sar, { spec: { ...body.spec, resourceAttributes: { ...body.spec.resourceAttributes, name: 'example.com/one' } } });
    expect(yes.json.status).toEqual({ allowed: true });
  });

  it('exposes decisions, cache hits and webhook latency per authorizer in /metrics', async () => {
    const text = (await s.req('admin', 'GET', '/metrics')).text;
    expect(text).toMatch(/apiserver_authorization_decisions_total\{type="Webhook",name="policy",decision="allow"\} [1-9]/);
    expect(text).toMatch(/apiserver_authorization_decisions_total\{type="Webhook",name="policy",decision="deny"\} [1-9]/);
    expect(text).toMatch(/apiserver_authorization_decisions_total\{type="Builtin",name="builtin",decision="allow"\} [1-9]/);
    expect(text).toMatch(/apiserver_authorization_webhook_cache_hits_total\{name="policy",decision="allow"\} [1-9]/);
    expect(text).toMatch(/apiserver_authorization_webhook_duration_seconds_count\{name="policy",result="success"\} [1-9]/);
    expect(text).toMatch(/apiserver_authorization_match_condition_exclusions_total\{type="Webhook",name="policy"\} [1-9]/);
    // One registry from @plat/telemetry for the server, egress and auth: process metrics once.
    expect(text.match(/^# TYPE process_cpu_user_seconds_total counter$/gm)).toHaveLength(1);
  });

  it('reloads the file: a valid version applies, an invalid one is logged and the previous stays', async () => {
    const reloads = async (status: string) => {
      const m = new RegExp(`apiserver_authorization_config_controller_automatic_reloads_total\\{status="${status}"[^}]*\\} (\\d+)`).exec(
        (await s.req('admin', 'GET', '/metrics')).text,
      );
      return m ? Number(m[1]) : 0;
    };
    // v2: everything the built-in rules leave open is allowed.
    replaceFile(authzFile, 'apiVersion: apiserver.plat.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: AlwaysAllow\n  name: alwaysallow\n');
    await eventually(async () => (await s.req(reader, 'POST', ctbPath, unsigned('open-1', pem))).status === 201);
    expect(await reloads('success')).toBeGreaterThanOrEqual(1);

    // v3 is invalid: logged, counted, and v2 stays in force.
    replaceFile(authzFile, 'apiVersion: apiserver.plat.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Magic\n  name: x\n');
    await eventually(async () => (await reloads('failure')) >= 1);
    expect(s.logs.some((l) => l.includes('Keeping the current authorization configuration') && l.includes('authorizers[0].type'))).toBe(true);
    expect((await s.req(reader, 'POST', ctbPath, unsigned('open-2', pem))).status).toBe(201);

    // Back to the webhook policy.
    replaceFile(authzFile, authorizationConfig(webhook.configFile));
    await eventually(async () => (await s.req(reader, 'POST', ctbPath, unsigned('open-3', pem))).status === 403);
  });
});

describe('webhook failures', () => {
  // AlwaysAllow after the webhook: NoOpinion lets it decide (404 for the missing object), Deny does not.
  it.each([
    ['Deny', 403],
    ['NoOpinion', 404],
  ])('a webhook answering 500 under failurePolicy %s', async (failurePolicy, code) => {
    const dir = tempDir('plat-authz-fail-');
    const webhook = await startWebhook(dir, () => ({ raw: 'boom', code: 500 }));
    const authzFile = path.join(dir, 'authz.yaml');
    fs.writeFileSync(authzFile, authorizationConfig(webhook.configFile, { failurePolicy, then: 'AlwaysAllow' }));
    const tokens = path.join(dir, 'tokens.csv');
    fs.writeFileSync(tokens, 'writer-token,writer,u1,"writers"\n');
    const s = await startServer(path.join(dir, 'data'), [`--authorization-config=${authzFile}`, `--token-auth-file=${tokens}`]);
    try {
      const res = await s.req(writer, 'DELETE', `${ctbPath}/x`);
      expect(res.status).toBe(code);
      if (code === 403) expect(res.json.message).toContain('the webhook answered 500');
      // The built-in rules still work without the webhook.
      expect((await s.req(writer, 'GET', ctbPath)).status).toBe(200);
    } finally {
      await s.stop();
      await webhook.close();
    }
  });

  it('refuses to start with a missing PlatConfig file, naming the field', async () => {
    const dir = tempDir('plat-authz-bad-');
    const authzFile = path.join(dir, 'authz.yaml');
    fs.writeFileSync(authzFile, authorizationConfig(path.join(dir, 'missing.conf')));
    await expect(startServer(path.join(dir, 'data'), [`--authorization-config=${authzFile}`])).rejects.toThrow(
      /platConfigFile: Invalid value: .*missing\.conf.*no such file or directory/,
    );
  });
});

describe('a webhook behind the controlplane egress selection', () => {
  it('is reached through the HTTP CONNECT proxy of --egress-selector-config-file, with its own TLS end to end', async () => {
    const dir = tempDir('plat-authz-egress-');
    const webhook = await startWebhook(dir, policy);
    const tunnels: string[] = [];
    const proxy = http.createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const egress = path.join(dir, 'egress.yaml');
    fs.writeFileSync(
      egress,
      `apiVersion: apiserver.plat.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: controlplane\n  connection:\n    proxyProtocol: HTTPConnect\n    transport:\n      tcp:\n        url: http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}\n`,
    );
    const authzFile = path.join(dir, 'authz.yaml');
    fs.writeFileSync(authzFile, authorizationConfig(webhook.configFile));
    const tokens = path.join(dir, 'tokens.csv');
    fs.writeFileSync(tokens, 'writer-token,writer,u1,"writers"\n');
    const s = await startServer(path.join(dir, 'data'), [`--authorization-config=${authzFile}`, `--token-auth-file=${tokens}`, `--egress-selector-config-file=${egress}`]);
    try {
      const res = await s.req(writer, 'POST', ctbPath, bundle('example.com:one:e', 'example.com/one', s.running.devPki!.ca.certPem));
      expect(res.status).toBe(201);
      expect(tunnels).toContain(new URL(webhook.url).host);
      expect(webhook.calls.every((c) => c.clientCN === 'apiserver')).toBe(true);
    } finally {
      await s.stop();
      await webhook.close();
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });
});

describe('--authorization-mode=Webhook (the flags build the same configuration)', () => {
  it('calls the webhook with a v1beta1 review by default', async () => {
    const dir = tempDir('plat-authz-flags-');
    const webhook = await startWebhook(dir, policy);
    const tokens = path.join(dir, 'tokens.csv');
    fs.writeFileSync(tokens, 'writer-token,writer,u1,"writers"\n');
    const s = await startServer(path.join(dir, 'data'), [
      '--authorization-mode=Webhook',
      `--authorization-webhook-config-file=${webhook.configFile}`,
      `--token-auth-file=${tokens}`,
    ]);
    try {
      const res = await s.req(writer, 'POST', ctbPath, bundle('example.com:one:z', 'example.com/one', s.running.devPki!.ca.certPem));
      expect(res.status).toBe(201);
      expect(webhook.calls[0]!.apiVersion).toBe('authorization.plat.io/v1beta1');
      expect(webhook.calls[0]!.spec.group).toEqual(['writers', 'system:authenticated']);
    } finally {
      await s.stop();
      await webhook.close();
    }
  });
});

describe('--authorization-mode=Node,AlwaysDeny', () => {
  it('lets a node user create access reviews and nobody else anything beyond the built-in rules', async () => {
    const dir = tempDir('plat-authz-node-');
    const tokens = path.join(dir, 'tokens.csv');
    fs.writeFileSync(tokens, 'node-token,system:node:worker-1,u1,"system:nodes"\nwriter-token,writer,u2,"system:nodes"\n');
    const s = await startServer(path.join(dir, 'data'), ['--authorization-mode=Node,AlwaysDeny', `--token-auth-file=${tokens}`]);
    try {
      // Creating the review is the Node authorizer's allow; its answer is the chain's for the node.
      const review = { spec: { user: 'system:node:worker-2', groups: ['system:nodes'], resourceAttributes: { verb: 'create', group: 'authorization.plat.io', resource: 'subjectaccessreviews' } } };
      const asNode = await s.req({ token: 'node-token' }, 'POST', sar, review);
      expect(asNode.status).toBe(201);
      expect(asNode.json.status).toEqual({ allowed: true });
      const notANode = await s.req({ token: 'node-token' }, 'POST', sar, { spec: { ...review.spec, groups: [] } });
      expect(notANode.json.status).toMatchObject({ allowed: false });
      // In system:nodes but not named system:node:<name>: not a node.
      expect((await s.req(writer, 'POST', sar, review)).status).toBe(403);
      const create = await s.req({ token: 'node-token' }, 'POST', ctbPath, unsigned('by-node', s.running.devPki!.ca.certPem));
      expect(create.status).toBe(403);
    } finally {
      await s.stop();
    }
  });
});

describe('automatic reload of --authentication-config', () => {
  it('applies a new anonymous section and a new JWT issuer, and keeps the previous version when the new one is invalid', async () => {
    const dir = tempDir('plat-authn-reload-');
    const idp = await startOidcProvider(dir);
    const file = path.join(dir, 'authn.yaml');
    const head = 'apiVersion: apiserver.plat.io/v1beta1\nkind: AuthenticationConfiguration\n';
    fs.writeFileSync(file, `${head}anonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n`);
    const s = await startServer(path.join(dir, 'data'), [`--authentication-config=${file}`]);
    try {
      expect((await s.req('none', 'GET', '/livez')).status).toBe(200);
      const token = await idp.sign({ iss: idp.url, aud: 'plat', sub: 'dana', exp: Math.floor(Date.now() / 1000) + 600 });
      expect((await s.req({ token }, 'GET', ctbPath)).status).toBe(401);

      const ca = fs.readFileSync(idp.caFile, 'utf8').trim().split('\n').map((l) => `      ${l}`).join('\n');
      replaceFile(
        file,
        `${head}anonymous:\n  enabled: false\njwt:\n- issuer:\n    url: ${idp.url}\n    audiences: [plat]\n    certificateAuthority: |\n${ca}\n  claimMappings:\n    username: {claim: sub, prefix: 'idp:'}\n`,
      );
      await eventually(async () => (await s.req({ token }, 'GET', ctbPath)).status === 200);
      expect((await s.req('none', 'GET', '/livez')).status).toBe(401);

      replaceFile(file, `${head}jwt:\n- issuer:\n    url: http://not-https.example.com\n    audiences: [plat]\n  claimMappings:\n    username: {claim: sub, prefix: ''}\n`);
      await eventually(() => s.logs.some((l) => l.includes('Keeping the current authentication configuration')));
      expect(s.logs.find((l) => l.includes('Keeping the current authentication configuration'))).toContain('jwt[0].issuer.url');
      expect((await s.req({ token }, 'GET', ctbPath)).status).toBe(200);
      const metrics = (await s.req('admin', 'GET', '/metrics')).text;
      expect(metrics).toMatch(/apiserver_authentication_config_controller_automatic_reloads_total\{status="success"[^}]*\} 1/);
      expect(metrics).toMatch(/apiserver_authentication_config_controller_automatic_reloads_total\{status="failure"[^}]*\} 1/);
      expect(metrics).toMatch(/apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds\{status="failure"/);
    } finally {
      await s.stop();
      await idp.stop();
    }
  });
});
