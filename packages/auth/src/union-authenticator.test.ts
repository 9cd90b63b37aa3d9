import { withAuthenticatedGroup } from './union-authenticator.js';

describe('withAuthenticatedGroup', () => {
  it('gives a frozen result system:authenticated once, and answers the shared result for it and for itself', () => {
    const result = Object.freeze({ user: Object.freeze({ username: 'alice', groups: Object.freeze(['devs']) as string[] }) });
    const shared = withAuthenticatedGroup(result);
    expect(shared.user).toEqual({ username: 'alice', groups: ['devs', 'system:authenticated'] });
    expect(Object.isFrozen(shared) && Object.isFrozen(shared.user) && Object.isFrozen(shared.user.groups)).toBe(true);
    expect(withAuthenticatedGroup(result)).toBe(shared);
    expect(withAuthenticatedGroup(shared)).toBe(shared);
    expect(result.user.groups).toEqual(['devs']);
  });

  it('copies a result of one request, and leaves anonymous and results with the group as they are', () => {
    const result = { user: { username: 'bob', groups: ['devs'] } };
    const out = withAuthenticatedGroup(result);
    expect(out).not.toBe(result);
    expect(out.user.groups).toEqual(['devs', 'system:authenticated']);
    expect(result.user.groups).toEqual(['devs']);
    const anonymous = { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } };
    expect(withAuthenticatedGroup(anonymous)).toBe(anonymous);
    const grouped = Object.freeze({ user: Object.freeze({ username: 'carol', groups: Object.freeze(['system:authenticated']) as string[] }) });
    expect(withAuthenticatedGroup(grouped)).toBe(grouped);
  });
});
