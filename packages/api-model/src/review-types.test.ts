import { newSelfSubjectReview, selfSubjectReviewSchema } from './self-subject-review.js';
import {
  selfSubjectAccessReviewSchema,
  subjectAccessReviewFromV1beta1,
  subjectAccessReviewSchema,
  subjectAccessReviewToV1beta1,
  subjectAccessReviewV1beta1Schema,
  validateSelfSubjectAccessReviewSpec,
  validateSubjectAccessReviewSpec,
  type SubjectAccessReview,
} from './subject-access-review.js';

const v1: SubjectAccessReview = {
  apiVersion: 'authorization.plat.io/v1',
  kind: 'SubjectAccessReview',
  spec: {
    resourceAttributes: { verb: 'attest', group: 'certificates.plat.io', resource: 'signers', name: 'example.com/s' },
    user: 'alice',
    groups: ['devs', 'system:authenticated'],
    extra: { scopes: ['a'] },
    uid: 'u-1',
  },
};

describe('SubjectAccessReview', () => {
  it('parses v1 with groups and v1beta1 with group', () => {
    expect(subjectAccessReviewSchema.parse(v1).spec.groups).toEqual(['devs', 'system:authenticated']);
    const beta = subjectAccessReviewV1beta1Schema.parse({ ...v1, spec: { user: 'bob', group: ['ops'], nonResourceAttributes: { path: '/healthz', verb: 'get' } } });
    expect(beta.spec.group).toEqual(['ops']);
  });

  it('converts between v1 (groups) and v1beta1 (group)', () => {
    const beta = subjectAccessReviewToV1beta1(v1);
    expect(beta.apiVersion).toBe('authorization.plat.io/v1beta1');
    expect(beta.spec).toEqual({ ...v1.spec, groups: undefined, group: ['devs', 'system:authenticated'] } as object);
    expect('groups' in beta.spec).toBe(false);
    const back = subjectAccessReviewFromV1beta1({ ...beta, status: { allowed: true, reason: 'ok' } });
    expect(back.apiVersion).toBe('authorization.plat.io/v1');
    expect(back.spec).toEqual(v1.spec);
    expect(back.status).toEqual({ allowed: true, reason: 'ok' });
  });

  it('requires a status.allowed in answers', () => {
    expect(subjectAccessReviewSchema.safeParse({ ...v1, status: { reason: 'x' } }).success).toBe(false);
    expect(subjectAccessReviewSchema.parse({ ...v1, status: { allowed: false, denied: true } }).status?.denied).toBe(true);
  });

  it('validates the spec with Kubernetes\' messages', () => {
    expect(validateSubjectAccessReviewSpec(v1.spec)).toEqual([]);
    expect(validateSubjectAccessReviewSpec({}).map(String)).toEqual([
      'spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
      'spec.user: Invalid value: "": at least one of user or group must be specified',
    ]);
    expect(
      validateSubjectAccessReviewSpec({ user: 'a', resourceAttributes: {}, nonResourceAttributes: { path: '/x', verb: 'get' } }).map(String),
    ).toEqual([
      'spec: Invalid value: v1.NonResourceAttributes{Path:"/x", Verb:"get"}: exactly one of nonResourceAttributes or resourceAttributes must be specified',
    ]);
    expect(validateSubjectAccessReviewSpec({ groups: ['g'], nonResourceAttributes: { path: '/' } })).toEqual([]);
  });
});

describe('SelfSubjectAccessReview', () => {
  it('parses a can-i request and validates it', () => {
    const ssar = selfSubjectAccessReviewSchema.parse({
      apiVersion: 'authorization.plat.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'list', group: 'certificates.plat.io', resource: 'clustertrustbundles' } },
    });
    expect(validateSelfSubjectAccessReviewSpec(ssar.spec)).toEqual([]);
    expect(validateSelfSubjectAccessReviewSpec({}).map(String)).toEqual([
      'spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
    ]);
  });
});

describe('SelfSubjectReview', () => {
  it('answers with the caller\'s user info', () => {
    const review = newSelfSubjectReview({ username: 'alice', uid: 'u', groups: ['devs'], extra: { k: ['v'] } });
    expect(selfSubjectReviewSchema.parse(review)).toEqual({
      apiVersion: 'authentication.plat.io/v1',
      kind: 'SelfSubjectReview',
      metadata: { creationTimestamp: null },
      status: { userInfo: { username: 'alice', uid: 'u', groups: ['devs'], extra: { k: ['v'] } } },
    });
  });
});
