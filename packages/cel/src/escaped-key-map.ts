/**
 * Maps whose keys CEL can name with Kubernetes' escapes: `claims.kubernetes__dot__io` reaches the
 * claim `kubernetes.io`, `user.extra.example__dot__com__slash__team` the extra key
 * `example.com/team`, and so on at every depth of a token's JSON.
 *
 * Kubernetes wraps the claims and the user info in CEL values whose key lookup (`Find`, used by
 * field selection, indexing, `has()` and optional selection) unescapes the name first:
 * `k8s.io/apiserver/pkg/cel/lazy` (the claims object and the user info: a name that does not
 * unescape is not found) and `unescapeMapper` in
 * `plugin/pkg/authenticator/token/oidc/oidc.go` (nested JSON objects and `user.extra`: a name
 * that does not unescape is looked up as written). A name that unescapes to something else is
 * looked up only under the unescaped form.
 */

/** CEL's reserved words; Kubernetes escapes a property named after one as `__word__`. */
const reservedWords = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

const escapeSequence = /__[^_]+__/g;

/**
 * Kubernetes' `cel.Unescape` (`k8s.io/apiserver/pkg/cel/escaping.go`): `__dot__` → `.`,
 * `__dash__` → `-`, `__slash__` → `/`, `__underscores__` → `__`, and `__<reserved word>__` when
 * it is the whole name. Any other `__x__` sequence makes the name invalid (undefined).
 */
export function unescapeCelName(escaped: string): string | undefined {
  let valid = true;
  const name = escaped.replace(escapeSequence, (sequence) => {
    const contents = sequence.slice(2, -2);
    switch (contents) {
      case 'underscores':
        return '__';
      case 'dot':
        return '.';
      case 'dash':
        return '-';
      case 'slash':
        return '/';
      default:
        if (reservedWords.has(contents) && sequence.length === escaped.length) return contents;
        valid = false;
        return '';
    }
  });
  return valid ? name : undefined;
}

/**
 * A JSON object as CEL sees it in the claims and user environments. cel-js treats it as a map
 * (its constructor reads as `Map`); `get` and `has` are the key lookup of CEL's selection, index
 * and `has()`, with the name unescaped as Kubernetes does; iteration, size and equality see the
 * keys as they are.
 */
export class EscapedKeyMap extends Map<unknown, unknown> {
  /**
   * @param strict the top-level object (`claims`): a name that does not unescape is not found,
   *   and `in` unescapes too; nested objects look such a name up as written and test `in` as is.
   */
  constructor(
    entries: Iterable<readonly [unknown, unknown]>,
    private readonly strict = false,
  ) {
    super(entries);
  }

  override get(key: unknown): unknown {
    const name = this.lookupName(key);
    return name === undefined ? undefined : super.get(name);
  }

  override has(key: unknown): boolean {
    const name = this.lookupName(key);
    return name !== undefined && super.has(name);
  }

  /** CEL's `key in map`: the object's own `Contains` in Kubernetes, unescaping only at the top. */
  contains(key: unknown): boolean {
    return this.strict ? this.get(key) !== undefined : super.get(key) !== undefined;
  }

  private lookupName(key: unknown): unknown {
    if (typeof key !== 'string') return this.strict ? undefined : key;
    const name = unescapeCelName(key);
    if (name === undefined) return this.strict ? undefined : key;
    return name;
  }
}

// cel-js picks a value's CEL type by its constructor; this map is a CEL map like any other.
Object.defineProperty(EscapedKeyMap.prototype, 'constructor', { value: Map, writable: true, configurable: true });
