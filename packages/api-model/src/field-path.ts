/**
 * A path to a field of an object, printed the way Kubernetes prints it:
 * `spec.trustBundle`, `jwt[0].issuer.url`, `extra[example.com/key]`.
 */
export class FieldPath {
  private constructor(
    private readonly parent: FieldPath | undefined,
    private readonly segment: string,
    private readonly kind: 'root' | 'child' | 'index' | 'key',
  ) {}

  static root(name: string, ...more: string[]): FieldPath {
    let path = new FieldPath(undefined, name, 'root');
    for (const child of more) path = path.child(child);
    return path;
  }

  /** An empty path: errors on it print without a field prefix. */
  static empty(): FieldPath {
    return new FieldPath(undefined, '', 'root');
  }

  child(name: string, ...more: string[]): FieldPath {
    let path: FieldPath = new FieldPath(this, name, 'child');
    for (const next of more) path = path.child(next);
    return path;
  }

  index(i: number): FieldPath {
    return new FieldPath(this, String(i), 'index');
  }

  key(k: string): FieldPath {
    return new FieldPath(this, k, 'key');
  }

  toString(): string {
    const parts: FieldPath[] = [this];
    for (let p = this.parent; p; p = p.parent) parts.unshift(p);
    let out = '';
    for (const p of parts) {
      switch (p.kind) {
        case 'root':
          out += p.segment;
          break;
        case 'child':
          out += out === '' ? p.segment : `.${p.segment}`;
          break;
        case 'index':
        case 'key':
          out += `[${p.segment}]`;
          break;
      }
    }
    return out;
  }
}
