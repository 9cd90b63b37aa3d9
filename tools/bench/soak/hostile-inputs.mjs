// The hostile requests of the soak benchmark (issue 16): each is bad input that must get a 4xx
// answer (a Status), never a 5xx, a crash or a stall. Bodies are built once; `make(i)` gives the
// request of a kind for sequence number i (which names the objects it would create).

const collection = '/apis/certificates.plat.io/v1alpha1/clustertrustbundles';
const apiVersion = 'certificates.plat.io/v1alpha1';
const kind = 'ClusterTrustBundle';

/** `depth` nested arrays: `[[[...]]]`. */
const deepArray = (depth) => '['.repeat(depth) + ']'.repeat(depth);

/** A YAML billion-laughs document: 9 levels of 9 aliases each (9^9 nodes once expanded). */
function aliasBomb() {
  const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 10; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(',')}]`);
  return `${lines.join('\n')}\nkind: ${kind}\napiVersion: ${apiVersion}\nmetadata: {name: bomb}\n`;
}

/**
 * The hostile inputs, by name. `make(i)` answers { method, path, headers, body }. Kubernetes
 * answers each with a 4xx, except 100,000 unknown fields with fieldValidation Warn: 201, with
 * its warnings bounded.
 */
export function hostileInputs(anchorPem) {
  const meta = (i) => ({ name: `hostile-${i}` });
  const json = { 'content-type': 'application/json' };
  const deepJson = deepArray(20_000);
  const deepSpec = `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{"name":"deep-spec"},"spec":{"trustBundle":${JSON.stringify(anchorPem)},"x":${deepJson}}}`;
  const deepManaged = `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{"name":"deep-mf","managedFields":[{"manager":"m","operation":"Apply","fieldsType":"FieldsV1","fieldsV1":${'{"f:a":'.repeat(20_000)}{}${'}'.repeat(20_000)}}]},"spec":{"trustBundle":${JSON.stringify(anchorPem)}}}`;
  const deepYaml = `${'['.repeat(1_500)}${']'.repeat(1_500)}`;
  const bomb = aliasBomb();
  // 35,000 BEGIN lines (957 KiB): the quadratic-scan input of the issue.
  const hugePem = '-----BEGIN CERTIFICATE-----\n'.repeat(35_000);
  const unknownFields = {};
  for (let i = 0; i < 100_000; i++) unknownFields[`u${i}`] = i;
  const bigBody = Buffer.alloc(3 * 1024 * 1024 + 1, 'a');
  const bundle = (name, extra = {}) => ({ apiVersion, kind, metadata: { name, ...extra.metadata }, spec: { trustBundle: anchorPem, ...extra.spec } });

  return {
    'deep JSON (20,000 arrays)': { make: () => ({ method: 'POST', path: collection, headers: json, body: deepJson }) },
    'deep JSON in spec': { make: () => ({ method: 'POST', path: collection, headers: json, body: deepSpec }) },
    'deep JSON in managedFields': { make: () => ({ method: 'POST', path: collection, headers: json, body: deepManaged }) },
    'deep merge patch': {
      make: () => ({ method: 'PATCH', path: `${collection}/soak-0`, headers: { 'content-type': 'application/merge-patch+json' }, body: `{"metadata":{"labels":${deepJson}}}` }),
    },
    'deep JSON patch': {
      make: () => ({ method: 'PATCH', path: `${collection}/soak-0`, headers: { 'content-type': 'application/json-patch+json' }, body: `[{"op":"add","path":"/metadata/annotations","value":${deepJson}}]` }),
    },
    'deep YAML (1,500 flow levels)': { make: () => ({ method: 'POST', path: collection, headers: { 'content-type': 'application/yaml' }, body: deepYaml }) },
    'deep YAML apply': {
      make: () => ({ method: 'PATCH', path: `${collection}/soak-0?fieldManager=soak`, headers: { 'content-type': 'application/apply-patch+yaml' }, body: deepYaml }),
    },
    'YAML alias bomb': { make: () => ({ method: 'POST', path: collection, headers: { 'content-type': 'application/yaml' }, body: bomb }) },
    'huge PEM (35,000 BEGIN lines)': {
      make: (i) => ({ method: 'POST', path: collection, headers: json, body: JSON.stringify(bundle(`pem-${i}`, { spec: { trustBundle: hugePem } })) }),
    },
    '100,000 unknown fields (Strict)': {
      make: (i) => ({ method: 'POST', path: `${collection}?fieldValidation=Strict`, headers: json, body: JSON.stringify(bundle(`unknown-${i}`, { spec: unknownFields })) }),
    },
    '100,000 unknown fields (Warn)': {
      make: (i) => ({ method: 'POST', path: collection, headers: json, body: JSON.stringify(bundle(`warned-${i}`, { spec: unknownFields })) }),
    },
    'integer beyond int64': {
      make: (i) => ({ method: 'POST', path: collection, headers: json, body: JSON.stringify(bundle(`int-${i}`)).replace('"metadata":{', '"metadata":{"generation":1208925819614629174706176,') }),
    },
    'body over 3 MiB': { make: () => ({ method: 'POST', path: collection, headers: json, body: bigBody }) },
    'malformed JSON': { make: () => ({ method: 'POST', path: collection, headers: json, body: '{"metadata": {"name": "x"' }) },
    'unsupported media type': { make: () => ({ method: 'POST', path: collection, headers: { 'content-type': 'text/plain' }, body: 'hello' }) },
    'headers over 1 MiB': { make: () => ({ method: 'GET', path: collection, headers: { 'x-padding': 'p'.repeat(1024 * 1024 + 1) } }) },
    'Impersonate-Group without a user': { make: () => ({ method: 'GET', path: collection, headers: { 'impersonate-group': 'system:masters' } }) },
    'bad query parameters': { make: (i) => ({ method: 'GET', path: `${collection}?${['timeoutSeconds=abc', 'limit=abc', 'labelSelector=a%20in%20(', 'resourceVersionMatch=Exact'][i % 4]}` }) },
    'invalid object (422)': { make: (i) => ({ method: 'POST', path: collection, headers: json, body: JSON.stringify({ apiVersion, kind, metadata: meta(i), spec: { trustBundle: 'not a PEM' } }) }) },
  };
}
