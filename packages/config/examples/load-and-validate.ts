import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatValidationReport, loadAuthenticationConfiguration, loadTracingConfiguration, validateConfigFiles } from '@plat/config';

// Loaders take the file's text (YAML or JSON) and never throw: ok with the typed, defaulted and
// compiled configuration, or the field errors Kubernetes would print.
const authentication = `
apiVersion: apiserver.plat.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: https://issuer.example.com
    audiences: [plat]
  claimMappings:
    username: { claim: sub, prefix: "oidc:" }
  claimValidationRules:
  - expression: claims.?email_verified.orValue(false) == true
    message: the e-mail address is not verified
`;
const loaded = loadAuthenticationConfiguration(authentication);
if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
assert.equal(loaded.config.jwt[0]!.issuer.url, 'https://issuer.example.com');

const broken = loadAuthenticationConfiguration(authentication.replace('https://issuer', 'http://issuer'));
assert.ok(!broken.ok);
console.log(broken.errors.map(String)); // [ 'jwt[0].issuer.url: Invalid value: "http://issuer.example.com": URL scheme must be https' ]

// An empty tracing file is valid: endpoint and sampling rate stay unset.
assert.deepEqual(loadTracingConfiguration('apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\n'), {
  ok: true,
  config: { apiVersion: 'apiserver.plat.io/v1beta1', kind: 'TracingConfiguration' },
  warnings: [],
});

// validateConfigFiles is async: it reads the named files (what `apiserver validate` prints).
const dir = await mkdtemp(join(tmpdir(), 'plat-config-'));
try {
  await writeFile(join(dir, 'authn.yaml'), authentication);
  await writeFile(join(dir, 'tracing.yaml'), 'apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\nsamplingRatePerMillion: 2000000\n');
  const results = await validateConfigFiles({ authenticationConfig: 'authn.yaml', tracingConfigFile: 'tracing.yaml' }, { cwd: dir });
  const report = formatValidationReport(results);
  assert.equal(report.exitCode, 1);
  assert.deepEqual(report.stdout, ['authn.yaml: valid AuthenticationConfiguration']);
  console.log(report.stderr.join('\n')); // tracing.yaml: samplingRatePerMillion: Invalid value: 2000000: ...
} finally {
  await rm(dir, { recursive: true, force: true });
}
