import * as assert from 'node:assert/strict';
import { CelBudgetExceededError, CelTypes, compile, requestActivation, toCelClaims } from '@plat/cel';

// A claim validation rule: compiled once (type-checked against the `claims` environment),
// evaluated per token.
const rule = compile('claims', 'claims.?email_verified.orValue(false) == true', [CelTypes.Bool]);
if (!rule.ok) throw new Error(rule.issue.detail);
assert.equal(rule.program.evaluate({ claims: toCelClaims({ email: 'ada@example.com', email_verified: true }) }), true);

// A claim mapping that produces a list of groups.
const groups = compile('claims', 'claims.groups.filter(g, g.startsWith("dev-")).map(g, "oidc:" + g)', [CelTypes.StringList]);
if (!groups.ok) throw new Error(groups.issue.detail);
assert.deepEqual(groups.program.evaluate({ claims: toCelClaims({ groups: ['dev-a', 'ops', 'dev-b'] }) }), ['oidc:dev-a', 'oidc:dev-b']);

// A webhook match condition over the SubjectAccessReview being authorized.
const condition = compile('request', "has(request.resourceAttributes) && request.resourceAttributes.verb == 'create'", [CelTypes.Bool]);
if (!condition.ok) throw new Error(condition.issue.detail);
const review = { user: 'ada', groups: ['dev'], resourceAttributes: { verb: 'create', group: 'certificates.plat.io', resource: 'clustertrustbundles' } };
assert.equal(condition.program.evaluate(requestActivation(review)), true);

// Mistakes are found when the configuration is loaded, with Kubernetes' texts.
const wrongType = compile('claims', 'claims.sub', [CelTypes.Bool]);
assert.ok(!wrongType.ok);
console.log(wrongType.issue.detail); // must evaluate to bool

// Evaluation is bounded: a runaway comprehension stops with CelBudgetExceededError.
const runaway = compile('claims', '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, a * b > 0))', [CelTypes.Bool], {
  budget: { maxSteps: 50, maxMilliseconds: 100 },
});
if (!runaway.ok) throw new Error(runaway.issue.detail);
assert.throws(() => runaway.program.evaluate({ claims: {} }), CelBudgetExceededError);
