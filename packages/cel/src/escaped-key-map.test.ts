import { EscapedKeyMap, unescapeCelName } from './escaped-key-map.js';

// Kubernetes' rules: k8s.io/apiserver/pkg/cel/escaping.go and its TestUnescape.
describe('unescapeCelName', () => {
  it('turns the escape sequences back into the characters they stand for', () => {
    expect(unescapeCelName('kubernetes__dot__io')).toBe('kubernetes.io');
    expect(unescapeCelName('bio__dot__snorlax__dot__org__slash__3')).toBe('bio.snorlax.org/3');
    expect(unescapeCelName('x__dash__kubernetes')).toBe('x-kubernetes');
    expect(unescapeCelName('a__underscores__b')).toBe('a__b');
    expect(unescapeCelName('plain_name')).toBe('plain_name');
  });

  it('accepts an escaped reserved word only as the whole name', () => {
    expect(unescapeCelName('__namespace__')).toBe('namespace');
    expect(unescapeCelName('a__namespace__')).toBeUndefined();
  });

  it('refuses unknown escape sequences', () => {
    expect(unescapeCelName('__foo__')).toBeUndefined();
    expect(unescapeCelName('a__bar__b')).toBeUndefined();
  });
});

describe('EscapedKeyMap', () => {
  const nested = new EscapedKeyMap([
    ['username.io', 'snorlax'],
    ['__foo__', 'literal'],
    ['a__dot__b', 'shadowed'],
  ]);
  const top = new EscapedKeyMap(
    [
      ['kubernetes.io', nested],
      ['__foo__', 'literal'],
    ],
    true,
  );

  it('reads as a CEL map to cel-js and iterates its keys as written', () => {
    expect(top.constructor).toBe(Map);
    expect(top instanceof Map).toBe(true);
    expect([...nested.keys()]).toEqual(['username.io', '__foo__', 'a__dot__b']);
  });

  it('finds a key by its escaped name, and then only under the unescaped form', () => {
    expect(top.get('kubernetes__dot__io')).toBe(nested);
    expect(top.get('kubernetes.io')).toBe(nested);
    expect(nested.get('username__dot__io')).toBe('snorlax');
    expect(nested.get('a__dot__b')).toBeUndefined();
    expect(nested.has('a__dot__b')).toBe(false);
  });

  it('looks a name that does not unescape up as written below the top and not at all at the top', () => {
    expect(nested.get('__foo__')).toBe('literal');
    expect(top.get('__foo__')).toBeUndefined();
  });

  it('tests `in` with unescaping at the top only, like the Contains of the two Kubernetes wrappers', () => {
    expect(top.contains('kubernetes__dot__io')).toBe(true);
    expect(nested.contains('username__dot__io')).toBe(false);
    expect(nested.contains('a__dot__b')).toBe(true);
  });
});
