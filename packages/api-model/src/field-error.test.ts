import { FieldPath } from './field-path.js';
import { aggregateFieldErrors, fieldError } from './field-error.js';
import { newInvalid } from './status.js';

describe('field paths', () => {
  it('prints children, indexes and keys as Kubernetes does', () => {
    expect(FieldPath.root('spec').child('trustBundle').toString()).toBe('spec.trustBundle');
    expect(FieldPath.root('jwt').index(0).child('issuer', 'url').toString()).toBe('jwt[0].issuer.url');
    expect(FieldPath.root('extra').key('example.com/k').toString()).toBe('extra[example.com/k]');
  });
});

describe('field errors', () => {
  it('formats each error type exactly', () => {
    const p = FieldPath.root('jwt').index(0).child('issuer', 'url');
    expect(fieldError.invalid(p, 'http://issuer', 'URL scheme must be https').toString()).toBe(
      'jwt[0].issuer.url: Invalid value: "http://issuer": URL scheme must be https',
    );
    expect(fieldError.required('spec.trustBundle').toString()).toBe('spec.trustBundle: Required value');
    expect(fieldError.required('a', 'must be set').toString()).toBe('a: Required value: must be set');
    expect(fieldError.duplicate('a[1]', 'x').toString()).toBe('a[1]: Duplicate value: "x"');
    expect(fieldError.forbidden('a', 'may not be set').toString()).toBe('a: Forbidden: may not be set');
    expect(fieldError.notSupported('t', 'X', ['A', 'B']).toString()).toBe(
      't: Unsupported value: "X": supported values: "A", "B"',
    );
    expect(fieldError.tooLong('n', 'xx', 1).toString()).toBe('n: Too long: may not be more than 1 bytes');
    expect(fieldError.tooMany('m', 65, 64).toString()).toBe('m: Too many: 65: must have at most 64 items');
    expect(fieldError.notFound('f', 'x').toString()).toBe('f: Not found: "x"');
    expect(fieldError.internal('f', new Error('boom')).toString()).toBe('f: Internal error: boom');
    expect(fieldError.invalid('n', 3, 'must be positive').toString()).toBe('n: Invalid value: 3: must be positive');
    expect(fieldError.invalid('n', null, 'x').toString()).toBe('n: Invalid value: null: x');
  });

  it('aggregates one error bare and several in brackets', () => {
    const a = fieldError.required('a');
    const b = fieldError.required('b');
    expect(aggregateFieldErrors([a])).toBe('a: Required value');
    expect(aggregateFieldErrors([a, b, a])).toBe('[a: Required value, b: Required value]');
  });

  it('converts to a 422 Status with causes', () => {
    const err = newInvalid({ group: 'certificates.plat.io', kind: 'ClusterTrustBundle' }, 'x', [
      fieldError.required('spec.trustBundle'),
    ]);
    expect(err.code).toBe(422);
    expect(err.status.message).toBe('ClusterTrustBundle.certificates.plat.io "x" is invalid: spec.trustBundle: Required value');
    expect(err.status.details?.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.trustBundle' },
    ]);
  });
});
