import { FieldError, FieldErrorType } from './field-error.js';
import {
  StatusError,
  maxStatusCauses,
  newInvalid,
  isStatusError,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newForbidden,
  newGone,
  newInternalError,
  newMethodNotSupported,
  newNotAcceptable,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServiceUnavailable,
  newTimeout,
  newTooManyRequests,
  newUnauthorized,
  successStatus,
} from './status.js';
import { statusSchema } from './status-schema.js';

const ctb = { group: 'certificates.plat.io', resource: 'clustertrustbundles' };

describe('Status errors', () => {
  it.each([
    [newNotFound(ctb, 'x'), 404, 'NotFound', 'clustertrustbundles.certificates.plat.io "x" not found'],
    [newAlreadyExists(ctb, 'x'), 409, 'AlreadyExists', 'clustertrustbundles.certificates.plat.io "x" already exists'],
    [
      newConflict(ctb, 'x', new Error('the object has been modified; please apply your changes to the latest version and try again')),
      409,
      'Conflict',
      'Operation cannot be fulfilled on clustertrustbundles.certificates.plat.io "x": the object has been modified; please apply your changes to the latest version and try again',
    ],
    [newBadRequest('bad'), 400, 'BadRequest', 'bad'],
    [newUnauthorized(), 401, 'Unauthorized', 'Unauthorized'],
    [
      newForbidden(ctb, 'x', new Error('user "bob" cannot get resource "clustertrustbundles" in API group "certificates.plat.io" at the cluster scope')),
      403,
      'Forbidden',
      'clustertrustbundles.certificates.plat.io "x" is forbidden: user "bob" cannot get resource "clustertrustbundles" in API group "certificates.plat.io" at the cluster scope',
    ],
    [newForbidden(ctb, '', 'no'), 403, 'Forbidden', 'clustertrustbundles.certificates.plat.io is forbidden: no'],
    [newForbidden({ group: '', resource: '' }, '', 'no'), 403, 'Forbidden', 'forbidden: no'],
    [newMethodNotSupported(ctb, 'patch'), 405, 'MethodNotAllowed', 'patch is not supported on resources of kind "clustertrustbundles.certificates.plat.io"'],
    [newGone('gone'), 410, 'Gone', 'gone'],
    [newResourceExpired('too old resource version: 1 (5)'), 410, 'Expired', 'too old resource version: 1 (5)'],
    [newTooManyRequests('slow down', 3), 429, 'TooManyRequests', 'slow down'],
    [newRequestEntityTooLarge('limit is 3145728'), 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'],
    [newNotAcceptable(['application/json', 'application/yaml']), 406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml'],
    [newTimeout('request did not complete within 60s', 2), 504, 'Timeout', 'Timeout: request did not complete within 60s'],
    [newInternalError(new Error('boom')), 500, 'InternalError', 'Internal error occurred: boom'],
    [newServiceUnavailable('down'), 503, 'ServiceUnavailable', 'down'],
  ])('%#: code %d, reason %s', (err, code, reason, message) => {
    expect(err.code).toBe(code);
    expect(err.reason).toBe(reason);
    expect(err.message).toBe(message);
    expect(err.status.status).toBe('Failure');
    expect(statusSchema.parse(JSON.parse(JSON.stringify(err)))).toEqual(JSON.parse(JSON.stringify(err.status)));
  });

  it('quotes names as Go does', () => {
    expect(newNotFound(ctb, 'a"b\u0007').message).toBe('clustertrustbundles.certificates.plat.io "a\\"b\\a" not found');
  });

  it('carries details', () => {
    expect(newNotFound(ctb, 'x').status.details).toEqual({ name: 'x', group: 'certificates.plat.io', kind: 'clustertrustbundles' });
    expect(newTooManyRequests('m', 3).status.details).toEqual({ retryAfterSeconds: 3 });
    expect(newInternalError('boom').status.details).toEqual({ causes: [{ message: 'boom' }] });
  });

  it('decodes a server Status and recognises reasons', () => {
    const err = StatusError.fromStatus(newGone('x').status);
    expect(isStatusError(err)).toBe(true);
    expect(isStatusError(err, 'Gone')).toBe(true);
    expect(isStatusError(err, 'NotFound')).toBe(false);
    expect(isStatusError(new Error('x'))).toBe(false);
  });

  it('builds the success Status of a delete', () => {
    expect(successStatus({ name: 'x', kind: 'clustertrustbundles' })).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'x', kind: 'clustertrustbundles' },
    });
  });
});

describe('newInvalid bounds', () => {
  it('keeps the first maxStatusCauses errors and counts the rest in one last cause', () => {
    const errors = Array.from({ length: 35_000 }, (_, i) => new FieldError(FieldErrorType.Invalid, 'spec.trustBundle', '<value omitted>', `entry ${i} does not parse as PEM`));
    const err = newInvalid({ group: 'certificates.plat.io', kind: 'ClusterTrustBundle' }, 'b', errors);
    const causes = err.status.details!.causes!;
    expect(causes).toHaveLength(maxStatusCauses + 1);
    expect(causes.at(-1)).toEqual({ reason: 'FieldValueTooMany', message: '34900 more errors omitted', field: '' });
    expect(err.message).toMatch(/^ClusterTrustBundle\.certificates\.plat\.io "b" is invalid: \[spec\.trustBundle: Invalid value: "<value omitted>": entry 0 does not parse as PEM, .*entry 99 does not parse as PEM, 34900 more errors omitted\]$/);
    expect(JSON.stringify(err.toJSON()).length).toBeLessThan(32 * 1024);
  });
});
