import { Registry } from 'prom-client';
import { CelTypes, compile } from '@plat/cel';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate, type PemKeyPair } from '@plat/x509';
import { startWebhookServer, type WebhookAnswer } from '../../test/webhook-server.js';
import type { Attributes } from '../interface.js';
import { WebhookAuthorizer, type WebhookAuthorizerOptions } from './webhook-authorizer.js';
import type { WebhookAuthorizerSpec } from './webhook-authorizer-spec.js';

let ca: PemKeyPair;
let serving: PemKeyPair;
let client: PemKeyPair;
let server: Awaited<ReturnType<typeof startWebhookServer>>;
let answer: (review: { apiVersion: string; spec: Record<string, unknown> }) => WebhookAnswer;
const authorizers: WebhookAuthorizer[] = [];

beforeAll(async () => {
  ca = await createCertificateAuthority({ commonName: 'webhook-ca' });
  serving = await issueServingCertificate(ca, { commonName: 'webhook', ipAddresses: ['127.0.0.1'] });
  client = await issueClientCertificate(ca, { commonName: 'apiserver' });
  server = await startWebhookServer({ ca, serving, token: 'sekret', decide: (r) => answer(r) });
});
beforeEach(() => {
  server.calls.length = 0;
  answer = () => ({ status: { allowed: true } });
});
afterAll(async () => {
  await Promise.all(authorizers.map((a) => a.close()));
  await server.close();
});

function authorizer(overrides: Partial<WebhookAuthorizerSpec> = {}, opts: WebhookAuthorizerOptions = {}) {
  const a = new WebhookAuthorizer(
    {
      name: 'corp',
      timeoutMs: 1000,
      authorizedTTLMs: 300_000,
      unauthorizedTTLMs: 30_000,
      subjectAccessReviewVersion: 'v1',
      failurePolicy: 'NoOpinion',
      matchConditions: [],
      ...overrides,
    },
    { server: server.url, ca: ca.certPem, cert: client.certPem, key: client.keyPem, token: 'sekret' },
    opts,
  );
  authorizers.push(a);
  return a;
}

const attrs = (over: Partial<Attributes> = {}): Attributes => ({
  user: { username: 'jane', groups: ['dev', 'system:authenticated'], uid: 'u1', extra: { 'example.com/team': ['a'] } },
  verb: 'attest',
  resourceRequest: true,
  apiGroup: 'certificates.plat.io',
  apiVersion: '*',
  resource: 'signers',
  subresource: '',
  namespace: '',
  name: 'example.com/signer',
  path: '',
  ...over,
});

describe('webhook authorizer', () => {
  it('sends a v1 SubjectAccessReview with mutual TLS and the token, and maps allow / deny / no opinion', async () => {
    const a = authorizer({ authorizedTTLMs: 0, unauthorizedTTLMs: 0 });
    expect(await a.authorize(attrs())).toEqual({ decision: 'Allow', reason: '' });
    expect(server.calls[0]).toMatchObject({
      apiVersion: 'authorization.plat.io/v1',
      clientCN: 'apiserver',
      spec: {
        user: 'jane',
        groups: ['dev', 'system:authenticated'],
        uid: 'u1',
        extra: { 'example.com/team': ['a'] },
        resourceAttributes: { verb: 'attest', group: 'certificates.plat.io', resource: 'signers', name: 'example.com/signer' },
      },
    });
    answer = () => ({ status: { allowed: false, denied: true, reason: 'not on the list' } });
    expect(await a.authorize(attrs({ name: 'other' }))).toEqual({ decision: 'Deny', reason: 'not on the list' });
    answer = () => ({ status: { allowed: false, reason: 'no idea' } });
    expect(await a.authorize(attrs({ name: 'third' }))).toEqual({ decision: 'NoOpinion', reason: 'no idea' });
  });

  it('speaks v1beta1 (group instead of groups) and non-resource attributes', async () => {
    const a = authorizer({ subjectAccessReviewVersion: 'v1beta1' });
    expect((await a.authorize(attrs({ resourceRequest: false, path: '/healthz', verb: 'get' }))).decision).toBe('Allow');
    expect(server.calls[0]!.apiVersion).toBe('authorization.plat.io/v1beta1');
    expect(server.calls[0]!.spec).toMatchObject({ group: ['dev', 'system:authenticated'], nonResourceAttributes: { path: '/healthz', verb: 'get' } });
    expect(server.calls[0]!.spec.groups).toBeUndefined();
  });

  it('caches allowed answers for authorizedTTL and denied ones for unauthorizedTTL', async () => {
    let clock = 1_000_000;
    const registry = new Registry();
    const a = authorizer({ authorizedTTLMs: 5000, unauthorizedTTLMs: 1000 }, { now: () => clock, registry });
    await a.authorize(attrs());
    await a.authorize(attrs());
    expect(server.calls).toHaveLength(1);
    clock += 5001;
    await a.authorize(attrs());
    expect(server.calls).toHaveLength(2);

    answer = () => ({ status: { allowed: false, denied: true } });
    await a.authorize(attrs({ name: 'denied' }));
    await a.authorize(attrs({ name: 'denied' }));
    expect(server.calls).toHaveLength(3);
    clock += 1001;
    await a.authorize(attrs({ name: 'denied' }));
    expect(server.calls).toHaveLength(4);
    expect(await registry.metrics()).toContain('apiserver_authorization_webhook_cache_hits_total{name="corp",decision="allow"} 1');
  });

  it.each([
    ['NoOpinion', 'NoOpinion'],
    ['Deny', 'Deny'],
  ] as const)('applies failurePolicy %s to timeouts, 500s and malformed answers', async (policy, expected) => {
    const registry = new Registry();
    const a = authorizer({ failurePolicy: policy, timeoutMs: 200 }, { registry });
    answer = () => ({ delayMs: 600, status: { allowed: true } });
    const timedOut = await a.authorize(attrs({ name: 'slow' }));
    expect(timedOut).toEqual({ decision: expected, reason: 'authorizer "corp": the webhook did not answer within 200ms' });
    answer = () => ({ raw: 'boom', code: 500 });
    expect(await a.authorize(attrs({ name: 'err' }))).toEqual({ decision: expected, reason: 'authorizer "corp": the webhook answered 500: boom' });
    answer = () => ({ raw: '{"kind":"SubjectAccessReview","apiVersion":"authorization.plat.io/v1","status":{"allowed":"yes"}}' });
    expect((await a.authorize(attrs({ name: 'bad' }))).decision).toBe(expected);
    answer = () => ({ raw: 'not json' });
    expect((await a.authorize(attrs({ name: 'bad2' }))).reason).toMatch(/^authorizer "corp": the webhook answer is not JSON/);
    // Failures are not cached: a healthy webhook is asked again.
    answer = () => ({ status: { allowed: true } });
    expect((await a.authorize(attrs({ name: 'err' }))).decision).toBe('Allow');
    const text = await registry.metrics();
    expect(text).toContain('apiserver_authorization_webhook_evaluations_fail_open_total{name="corp",error_type="timeout"} 1');
    expect(text).toContain('apiserver_authorization_webhook_evaluations_fail_open_total{name="corp",error_type="error"} 3');
  });

  it('calls the webhook only when every match condition is true, and applies the failure policy on errors', async () => {
    const registry = new Registry();
    const a = authorizer(
      {
        failurePolicy: 'Deny',
        matchConditions: [
          { expression: "has(request.resourceAttributes) && request.resourceAttributes.group == 'certificates.plat.io'" },
          { expression: "!('system:masters' in request.groups)" },
          { expression: "request.user != 'boom' || request.extra['missing'][0] == 'x'" },
        ],
      },
      { registry },
    );
    expect((await a.authorize(attrs())).decision).toBe('Allow');
    expect(server.calls).toHaveLength(1);
    expect(await a.authorize(attrs({ apiGroup: 'other.io' }))).toEqual({ decision: 'NoOpinion', reason: '' });
    expect(await a.authorize(attrs({ user: { username: 'root', groups: ['system:masters'] } }))).toEqual({ decision: 'NoOpinion', reason: '' });
    const failed = await a.authorize(attrs({ user: { username: 'boom', groups: [] } }));
    expect(failed.decision).toBe('Deny');
    expect(failed.reason).toMatch(/^authorizer "corp": match condition .* failed: /);
    expect(server.calls).toHaveLength(1);
    const text = await registry.metrics();
    expect(text).toContain('apiserver_authorization_match_condition_evaluation_errors_total{type="Webhook",name="corp"} 1');
    expect(text).toContain('apiserver_authorization_match_condition_exclusions_total{type="Webhook",name="corp"} 2');
  });

  it('propagates trace context headers to the webhook', async () => {
    const a = authorizer({}, { injectHeaders: (h) => (h.traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01') });
    await a.authorize(attrs({ name: 'traced' }));
    expect(server.calls[0]!.headers.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
  });

  it('uses the compiled program of a match condition it is given instead of compiling the expression again', async () => {
    // What @plat/config hands over: the expression and the program it compiled while validating.
    const compiled = compile('request', "request.user != 'excluded'", [CelTypes.Bool]);
    if (!compiled.ok) throw new Error(compiled.issue.detail);
    let evaluations = 0;
    const program = Object.create(compiled.program, {
      evaluate: { value: (activation: Record<string, unknown>) => (evaluations++, compiled.program.evaluate(activation)) },
    }) as typeof compiled.program;
    const a = authorizer({ matchConditions: [{ expression: "request.user != 'excluded'", program }] });
    expect((await a.authorize(attrs({ name: 'compiled-once' }))).decision).toBe('Allow');
    expect(await a.authorize(attrs({ user: { username: 'excluded', groups: [] } }))).toEqual({ decision: 'NoOpinion', reason: '' });
    expect(evaluations).toBe(2);
  });

  it('refuses a match condition that does not compile to bool', () => {
    expect(() => authorizer({ matchConditions: [{ expression: 'request.user' }] })).toThrow(/must evaluate to bool/);
  });
});
