// Hostile request bodies through real HTTPS: deep nesting (JSON and YAML), alias bombs and
// integers beyond int64 answer 400 Status in bounded time, and the server keeps answering.
import { encodeJson, maxNestingDepth, maxStatusCauses } from '@plat/api-model';
import { bundle, ctbPath, isApplyTypeError, selfReviewAuthorizer, startCluster, type TestCluster } from '../cluster.js';

let c: TestCluster;
beforeAll(async () => {
  c = await startCluster({ authorizer: selfReviewAuthorizer });
  const created = await c.req('writer', 'POST', ctbPath, { body: bundle('target', c.anchorPem) });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await c.close();
});

const ssr = '/apis/authentication.plat.io/v1/selfsubjectreviews';
const target = `${ctbPath}/target`;
const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

/** A CTB body (JSON text) with `inner` placed as raw JSON at the given spot. */
function ctbWith(spot: 'top' | 'spec' | 'fieldsV1' | 'unknown', inner: string): string {
  const pem = JSON.stringify(c.anchorPem);
  const meta = (extra: string) => `{"name":"target"${extra}}`;
  switch (spot) {
    case 'top':
      return inner;
    case 'spec':
      return `{"apiVersion":"certificates.plat.io/v1alpha1","kind":"ClusterTrustBundle","metadata":${meta('')},"spec":{"trustBundle":${pem},"x":${inner}}}`;
    case 'unknown':
      return `{"apiVersion":"certificates.plat.io/v1alpha1","kind":"ClusterTrustBundle","metadata":${meta('')},"spec":{"trustBundle":${pem}},"x":${inner}}`;
    case 'fieldsV1':
      return `{"apiVersion":"certificates.plat.io/v1alpha1","kind":"ClusterTrustBundle","metadata":${meta(
        `,"managedFields":[{"manager":"m","operation":"Update","apiVersion":"certificates.plat.io/v1alpha1","fieldsType":"FieldsV1","fieldsV1":{"f:x":${inner}}}]`,
      )},"spec":{"trustBundle":${pem}}}`;
  }
}

async function expectAlive(): Promise<void> {
  const res = await c.req('reader', 'GET', target);
  expect(res.status).toBe(200);
}

describe('deeply nested YAML', () => {
  it.each([1_500, 100_000])('answers 400 to %i levels of flow sequences on every YAML endpoint, again and again', async (levels) => {
    const text = `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const inSpec = `apiVersion: certificates.plat.io/v1alpha1\nkind: ClusterTrustBundle\nmetadata:\n  name: target\nspec:\n  x: ${text}\n`;
    const attempts = [
      () => c.req('writer', 'POST', ssr, { raw: text, contentType: 'application/yaml' }),
      () => c.req('writer', 'POST', ctbPath, { raw: inSpec, contentType: 'application/yaml' }),
      () => c.req('writer', 'PUT', target, { raw: inSpec, contentType: 'application/yaml' }),
      () => c.req('writer', 'PATCH', `${target}?fieldManager=m`, { raw: inSpec, contentType: 'application/apply-patch+yaml' }),
    ];
    for (let round = 0; round < 5; round++) {
      for (const attempt of attempts) {
        const started = performance.now();
        const res = await attempt();
        expect(res.status).toBe(400);
        expect(res.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
        expect(String(res.json['message'])).toMatch(/exceeded max depth/);
        expect(performance.now() - started).toBeLessThan(5000);
      }
    }
    await expectAlive();
  }, 120_000);

  it('answers 400 to deep block nesting and accepts YAML up to the limit', async () => {
    const block = `${Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1\n`;
    const res = await c.req('writer', 'POST', ctbPath, { raw: block, contentType: 'application/yaml' });
    expect(res.status).toBe(400);
    expect(res.json['message']).toBe(
      `the object provided is unrecognized (must be of type ClusterTrustBundle): error converting YAML to JSON: yaml: exceeded max depth of ${maxNestingDepth} (${Buffer.from(block.slice(0, 30)).toString('hex')} ...)`,
    );
    const pem = c.anchorPem.trim().replaceAll('\n', '\\n');
    const atLimit = `apiVersion: certificates.plat.io/v1alpha1\nkind: ClusterTrustBundle\nmetadata: {name: at-limit}\nspec: {trustBundle: "${pem}", x: ${deepArray(maxNestingDepth - 2)}}\n`;
    const ok = await c.req('writer', 'POST', ctbPath, { raw: atLimit, contentType: 'application/yaml' });
    expect(ok.status).toBe(201);
    expect(ok.json['spec']).toEqual({ trustBundle: `${c.anchorPem.trim()}` });
  });

  it('answers 400 BadRequest to a YAML alias bomb', async () => {
    const bomb = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      bomb.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    for (const path of [ctbPath, ssr]) {
      const res = await c.req('writer', 'POST', path, { raw: `${bomb.join('\n')}\n`, contentType: 'application/yaml' });
      expect(res.status).toBe(400);
      expect(String(res.json['message'])).toContain('error converting YAML to JSON: yaml: document contains excessive aliasing');
    }
    const apply = await c.req('writer', 'PATCH', `${target}?fieldManager=m`, { raw: `${bomb.join('\n')}\n`, contentType: 'application/apply-patch+yaml' });
    expect(apply.status).toBe(400);
    expect(apply.json['message']).toBe('error decoding YAML: yaml: document contains excessive aliasing');
    await expectAlive();
  });
});

describe('deeply nested JSON', () => {
  const spots = ['top', 'spec', 'unknown', 'fieldsV1'] as const;
  const writes = [
    { name: 'create', method: 'POST', path: () => ctbPath, contentType: 'application/json', body: (inner: string, spot: (typeof spots)[number]) => ctbWith(spot, inner) },
    { name: 'update', method: 'PUT', path: () => target, contentType: 'application/json', body: (inner: string, spot: (typeof spots)[number]) => ctbWith(spot, inner) },
    { name: 'apply', method: 'PATCH', path: () => `${target}?fieldManager=m&force=true`, contentType: 'application/apply-patch+yaml', body: (inner: string, spot: (typeof spots)[number]) => ctbWith(spot, inner) },
    { name: 'merge patch', method: 'PATCH', path: () => target, contentType: 'application/merge-patch+json', body: (inner: string, spot: (typeof spots)[number]) => ctbWith(spot, inner) },
    { name: 'strategic merge patch', method: 'PATCH', path: () => target, contentType: 'application/strategic-merge-patch+json', body: (inner: string, spot: (typeof spots)[number]) => ctbWith(spot, inner) },
    { name: 'JSON patch', method: 'PATCH', path: () => target, contentType: 'application/json-patch+json', body: (inner: string) => `[{"op":"add","path":"/spec/x","value":${inner}}]` },
  ];

  it.each([10_001, 100_000])('answers 400 "exceeded max depth" to %i levels anywhere, with and without fieldValidation', async (levels) => {
    for (const w of writes) {
      for (const spot of spots) {
        for (const inner of [deepArray(levels), deepObject(levels)]) {
          for (const validation of ['', 'Strict', 'Warn', 'Ignore']) {
            const q = validation ? `${w.path().includes('?') ? '&' : '?'}fieldValidation=${validation}` : '';
            const res = await c.req('writer', w.method, `${w.path()}${q}`, { raw: w.body(inner, spot), contentType: w.contentType });
            if (res.status !== 400) throw new Error(`${w.name} ${spot} ${validation}: ${res.status} ${res.text.slice(0, 300)}`);
            expect(String(res.json['message'])).toMatch(/exceeded max depth/);
          }
        }
      }
    }
    await expectAlive();
  }, 300_000);

  it('never answers 5xx to nesting at the limit, wherever it is', async () => {
    // At the limit the body decodes; what follows (pruning, managedFields, patching, storing,
    // encoding the answer) must hold as well: 2xx, or a 4xx naming the problem.
    for (const w of writes) {
      for (const spot of spots) {
        for (const n of [maxNestingDepth - 8, maxNestingDepth - 4]) {
          for (const inner of [deepArray(n), deepObject(n)]) {
            const res = await c.req('writer', w.method, w.path(), { raw: w.body(inner, spot), contentType: w.contentType });
            if (res.status >= 500) throw new Error(`${w.name} ${spot} ${n}: ${res.status} ${res.text.slice(0, 300)}`);
          }
        }
      }
    }
    await expectAlive();
  }, 120_000);
});

describe('nesting built by patches', () => {
  it('refuses a JSON patch that would nest the object deeper than the limit', async () => {
    const half = Math.floor(maxNestingDepth / 2);
    // A valid FieldsV1 tree (every leaf `{}`), kept as sent.
    const deepFields = (n: number) => `${'{"f:a":'.repeat(n)}{}${'}'.repeat(n)}`;
    const created = await c.req('writer', 'POST', ctbPath, { raw: ctbWith('fieldsV1', deepFields(half)).replace('"name":"target"', '"name":"deep-fields"') });
    expect(created.status).toBe(201);
    const fieldsV1 = (created.json['metadata'] as { managedFields: { fieldsV1: unknown }[] }).managedFields[0]!.fieldsV1;
    expect(encodeJson(fieldsV1)).toContain(deepFields(half));
    const path = `/metadata/managedFields/0/fieldsV1/f:x${'/f:a'.repeat(half)}/f:b`;
    const res = await c.req('writer', 'PATCH', `${ctbPath}/deep-fields`, { raw: `[{"op":"add","path":"${path}","value":${deepObject(half + 8)}}]`, contentType: 'application/json-patch+json' });
    expect(res.status).toBe(400);
    expect(res.json['message']).toBe(`the object nests arrays and objects more than ${maxNestingDepth} levels deep: exceeded max depth`);
    expect((await c.req('reader', 'GET', `${ctbPath}/deep-fields`)).status).toBe(200);
  });
});

describe('integers', () => {
  it('answers 400 to an integer beyond int64 in a typed field, naming the literal', async () => {
    const body = `{"apiVersion":"certificates.plat.io/v1alpha1","kind":"ClusterTrustBundle","metadata":{"name":"huge","generation":1208925819614629174706176},"spec":{"trustBundle":${JSON.stringify(c.anchorPem)}}}`;
    const res = await c.req('writer', 'POST', ctbPath, { raw: body });
    expect(res.status).toBe(400);
    expect(res.json['message']).toBe(
      'ClusterTrustBundle in version "v1alpha1" cannot be handled as a ClusterTrustBundle: json: cannot unmarshal number 1208925819614629174706176 into field metadata.generation of type int64',
    );
    const patch = await c.req('writer', 'PATCH', target, { raw: '{"metadata":{"generation":-9223372036854775809}}', contentType: 'application/merge-patch+json' });
    expect(patch.status).toBe(400);
    expect(patch.json['message']).toBe('json: cannot unmarshal number -9223372036854775809 into field metadata.generation of type int64');
    const yaml = await c.req('writer', 'POST', ctbPath, {
      raw: `apiVersion: certificates.plat.io/v1alpha1\nkind: ClusterTrustBundle\nmetadata: {name: huge, generation: 1208925819614629174706176}\n`,
      contentType: 'application/yaml',
    });
    expect(yaml.status).toBe(400);
    // go-yaml v2 (sigs.k8s.io/yaml) reads an integer beyond uint64 as a float64, which its JSON then spells so.
    expect(String(yaml.json['message'])).toMatch(/cannot unmarshal number 1\.2089258196146292e\+24 into field metadata.generation of type int64$/);
  });

  it('answers an apply configuration holding a huge integer of the wrong type with the typed-conversion error, not an InternalError', async () => {
    // Found by the fuzz suite: the message once tried JSON.stringify on a bigint (500 InternalError).
    const res = await c.req('writer', 'PATCH', `${target}?fieldManager=m`, {
      raw: '{"apiVersion":"certificates.plat.io/v1alpha1","kind":"ClusterTrustBundle","metadata":{"name":"target","labels":[-406387017226090300000]}}',
      contentType: 'application/apply-patch+yaml',
    });
    expect(isApplyTypeError(res.json)).toBe(true);
    expect(String(res.json['message'])).toContain('.metadata.labels: expected map, got [-406387017226090300000]');
  });

  it('keeps integers within int64 exact above 2^53, through create, get, list, watch and patch', async () => {
    const body = `{"apiVersion":"certificates.plat.io/v1alpha1","kind":"ClusterTrustBundle","metadata":{"name":"exact","generation":9007199254740993},"spec":{"trustBundle":${JSON.stringify(c.anchorPem)}}}`;
    const created = await c.req('writer', 'POST', ctbPath, { raw: body });
    expect(created.status).toBe(201);
    expect(created.text).toContain('"generation":9007199254740993');
    const got = await c.req('reader', 'GET', `${ctbPath}/exact`);
    expect(got.text).toContain('"generation":9007199254740993');
    const pretty = await c.req('reader', 'GET', `${ctbPath}/exact?pretty=true`);
    expect(pretty.text).toContain('"generation": 9007199254740993');
    const yaml = await c.req('reader', 'GET', `${ctbPath}/exact`, { headers: { accept: 'application/yaml' } });
    expect(yaml.text).toContain('generation: 9007199254740993');
    const list = await c.req('reader', 'GET', ctbPath);
    expect(list.text).toContain('"generation":9007199254740993');
    const watch = await c.req('reader', 'GET', `${ctbPath}?watch=true&timeoutSeconds=1&fieldSelector=metadata.name=exact`);
    expect(watch.text).toContain('"generation":9007199254740993');
    const patched = await c.req('writer', 'PATCH', `${ctbPath}/exact`, { raw: '{"metadata":{"labels":{"a":"b"}}}', contentType: 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    expect(patched.text).toContain('"generation":9007199254740993');
    const applied = await c.req('writer', 'PATCH', `${ctbPath}/exact?fieldManager=m`, {
      raw: `{"apiVersion":"certificates.plat.io/v1alpha1","kind":"ClusterTrustBundle","metadata":{"name":"exact","labels":{"c":"d"}}}`,
      contentType: 'application/apply-patch+yaml',
    });
    expect(applied.status).toBe(200);
    expect(applied.text).toContain('"generation":9007199254740993');
  });
});

describe('trust bundles and warnings', () => {
  it('answers a trust bundle of 35,000 BEGIN lines quickly with a bounded 422', async () => {
    const trustBundle = '-----BEGIN CERTIFICATE-----\n'.repeat(35_000);
    expect(trustBundle.length).toBeGreaterThan(950 * 1024);
    const started = performance.now();
    const res = await c.req('writer', 'POST', ctbPath, { body: bundle('many-begins', trustBundle) });
    const ms = performance.now() - started;
    expect(res.status).toBe(422);
    expect(ms).toBeLessThan(5000);
    expect(res.text.length).toBeLessThan(64 * 1024);
    // Go's pem.Decode finds no block in it (each BEGIN line lacks its END), so Kubernetes sees an empty bundle.
    const causes = (res.json['details'] as { causes: { reason: string; message: string; field: string }[] }).causes;
    expect(causes).toHaveLength(1);
    expect(causes[0]!.field).toBe('spec.trustBundle');
    expect(causes[0]!.message).toContain('at least one trust anchor must be provided');
    await expectAlive();
  }, 30_000);

  it('answers 16,000 blocks that decode but are no certificates with a 422 of bounded causes', async () => {
    const block = '-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n';
    const trustBundle = block.repeat(16_000);
    expect(trustBundle.length).toBeLessThan(1024 * 1024);
    const res = await c.req('writer', 'POST', ctbPath, { body: bundle('many-blocks', trustBundle) });
    expect(res.status).toBe(422);
    expect(res.text.length).toBeLessThan(64 * 1024);
    const causes = (res.json['details'] as { causes: { reason: string; message: string; field: string }[] }).causes;
    expect(causes).toHaveLength(maxStatusCauses + 1);
    expect(causes[0]!.message).toMatch(/^Invalid value: "<value omitted>": entry 0 /);
    expect(causes.at(-1)).toEqual({ reason: 'FieldValueTooMany', message: `${16_000 - maxStatusCauses} more errors omitted`, field: '' });
    await expectAlive();
  }, 30_000);

  it('bounds Warning headers as kube-apiserver does: 4 KiB of text, then 256 runes each', async () => {
    const fields = Array.from({ length: 100_000 }, (_, i) => `"f${i}":1`).join(',');
    const body = `{"apiVersion":"certificates.plat.io/v1alpha1","kind":"ClusterTrustBundle","metadata":{"name":"warned"},"spec":{"trustBundle":${JSON.stringify(c.anchorPem)},${fields}}}`;
    const res = await c.req('writer', 'POST', `${ctbPath}?fieldValidation=Warn&dryRun=All`, { raw: body });
    expect(res.status).toBe(201);
    const warnings = ([] as string[]).concat(res.headers['warning'] ?? []);
    expect(warnings[0]).toBe('299 - "unknown field \\"spec.f0\\""');
    const text = warnings.map((w) => JSON.parse(w.slice('299 - '.length)) as string);
    // Whole warnings up to 4 KiB, then the one that crosses it, then no more.
    const total = text.reduce((n, t) => n + t.length, 0);
    expect(total).toBeGreaterThan(4096);
    expect(total - text.at(-1)!.length).toBeLessThanOrEqual(4096);
    expect(text.at(-1)).toBe(`unknown field "spec.f${text.length - 1}"`);

    const long = Array.from({ length: 30 }, (_, i) => `"${String(i).padStart(300, 'x')}":1`).join(',');
    const longBody = `{"apiVersion":"certificates.plat.io/v1alpha1","kind":"ClusterTrustBundle","metadata":{"name":"warned"},"spec":{"trustBundle":${JSON.stringify(c.anchorPem)},${long}}}`;
    const cut = await c.req('writer', 'POST', `${ctbPath}?fieldValidation=Warn&dryRun=All`, { raw: longBody });
    const cutText = ([] as string[]).concat(cut.headers['warning'] ?? []).map((w) => JSON.parse(w.slice('299 - '.length)) as string);
    expect(cutText.every((t) => t.length === 256)).toBe(true);
    expect(cutText.length).toBe(4096 / 256);
    expect(cutText[0]).toBe(`unknown field "spec.${'0'.padStart(300, 'x')}"`.slice(0, 256));
  });
});
