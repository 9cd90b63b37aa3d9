/**
 * AuthorizationConfiguration: decoding, defaulting, validation and the loaded (typed) form.
 *
 * Rules and messages follow Kubernetes' `ValidateAuthorizationConfiguration` and
 * `ValidateWebhookConfiguration`, kube-apiserver's check that a built-in authorizer is named after
 * its type in lowercase, and v1beta1 defaulting of the cache TTLs. Unlike Kubernetes, webhook
 * errors are reported at their real place in the file (`authorizers[0].webhook.timeout`).
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { CelTypes, type CelProgram } from '@plat/cel';
import { fieldError, type FieldError, FieldPath, formatGoDuration, nanosecondsToMilliseconds, parseGoDuration } from '@plat/api-model';
import { compileField } from './cel-expression.js';
import { decodeDocument, type LoadResult } from './document.js';
import { isDNS1123Label } from './names.js';
import { authorizationConfigurationSchema, type WebhookConfigurationInput } from './schemas.js';

export const maxMatchConditions = 64;
export const maxWebhookTimeoutMs = 30_000;
export const defaultAuthorizedTTL = '5m';
export const defaultUnauthorizedTTL = '30s';

/**
 * Authorizer types the server offers unless told otherwise: kube-apiserver's
 * (`AuthorizationModeChoices`) without ABAC, which plat does not implement. A server that builds
 * fewer passes its own list as `supportedTypes`.
 */
export const defaultAuthorizerTypes: readonly string[] = ['AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'];
/** Types that may appear more than once. */
export const defaultRepeatableAuthorizerTypes: readonly string[] = ['Webhook'];

/** Kubernetes' connectionInfo with the brand rule: `KubeConfigFile` is `PlatConfigFile` (`PlatConfig` is accepted too). */
export type WebhookConnectionInfo = { type: 'InClusterConfig' } | { type: 'PlatConfigFile'; platConfigFile: string };

/** The connectionInfo types a file may name; `PlatConfig` loads as `PlatConfigFile`. */
const webhookConnectionInfoTypes: readonly string[] = ['InClusterConfig', 'PlatConfig', 'PlatConfigFile'];

export interface WebhookMatchCondition {
  expression: string;
  /** Compiled over `request` (SubjectAccessReviewSpec v1), type bool. */
  program: CelProgram;
}

export interface WebhookConfiguration {
  /** As written, or the default `5m`. */
  authorizedTTL: string;
  authorizedTTLMs: number;
  /** As written, or the default `30s`. */
  unauthorizedTTL: string;
  unauthorizedTTLMs: number;
  timeout: string;
  timeoutMs: number;
  subjectAccessReviewVersion: 'v1' | 'v1beta1';
  /** `v1`, or empty when there are no match conditions and none was given. */
  matchConditionSubjectAccessReviewVersion: 'v1' | '';
  failurePolicy: 'NoOpinion' | 'Deny';
  connectionInfo: WebhookConnectionInfo;
  matchConditions: WebhookMatchCondition[];
}

export interface AuthorizerConfiguration {
  type: string;
  name: string;
  /** Present exactly when type is Webhook. */
  webhook?: WebhookConfiguration;
}

export interface AuthorizationConfiguration {
  apiVersion: string;
  kind: 'AuthorizationConfiguration';
  authorizers: AuthorizerConfiguration[];
}

export interface AuthorizationLoadOptions {
  /** Authorizer types this server supports; defaults to {@link defaultAuthorizerTypes}. */
  supportedTypes?: readonly string[];
  /** Types that may repeat; defaults to Webhook only. */
  repeatableTypes?: readonly string[];
}

interface DurationField {
  text: string;
  ms: number;
}

function webhookDuration(
  raw: string | undefined,
  path: FieldPath,
  errs: FieldError[],
  defaultText: string | undefined,
): DurationField | undefined {
  const text = raw ?? '';
  let nanos = 0n;
  if (text !== '') {
    const parsed = parseGoDuration(text);
    if (!parsed.ok) {
      errs.push(fieldError.invalid(path, text, parsed.error));
      return undefined;
    }
    nanos = parsed.nanoseconds;
  }
  if (nanos === 0n) {
    if (defaultText === undefined) {
      errs.push(fieldError.required(path));
      return undefined;
    }
    const parsed = parseGoDuration(defaultText);
    return { text: defaultText, ms: parsed.ok ? nanosecondsToMilliseconds(parsed.nanoseconds) : 0 };
  }
  if (nanos < 0n) {
    errs.push(fieldError.invalid(path, formatGoDuration(nanos), 'must be > 0s'));
    return undefined;
  }
  return { text, ms: nanosecondsToMilliseconds(nanos) };
}

function validateWebhook(input: WebhookConfigurationInput, path: FieldPath, errs: FieldError[]): WebhookConfiguration | undefined {
  const before = errs.length;

  // timeout: required, > 0s and <= 30s, no default.
  let timeout: DurationField | undefined;
  const timeoutPath = path.child('timeout');
  const timeoutText = input.timeout ?? '';
  const parsedTimeout = timeoutText === '' ? undefined : parseGoDuration(timeoutText);
  if (parsedTimeout && !parsedTimeout.ok) {
    errs.push(fieldError.invalid(timeoutPath, timeoutText, parsedTimeout.error));
  } else if (!parsedTimeout || parsedTimeout.nanoseconds === 0n) {
    errs.push(fieldError.required(timeoutPath));
  } else if (parsedTimeout.nanoseconds < 0n || parsedTimeout.nanoseconds > 30_000_000_000n) {
    errs.push(fieldError.invalid(timeoutPath, formatGoDuration(parsedTimeout.nanoseconds), 'must be > 0s and <= 30s'));
  } else {
    timeout = { text: timeoutText, ms: nanosecondsToMilliseconds(parsedTimeout.nanoseconds) };
  }

  // v1beta1 defaulting: an absent or zero TTL becomes 5m / 30s.
  const authorizedTTL = webhookDuration(input.authorizedTTL, path.child('authorizedTTL'), errs, defaultAuthorizedTTL);
  const unauthorizedTTL = webhookDuration(input.unauthorizedTTL, path.child('unauthorizedTTL'), errs, defaultUnauthorizedTTL);

  const sarVersion = input.subjectAccessReviewVersion ?? '';
  if (sarVersion === '') errs.push(fieldError.required(path.child('subjectAccessReviewVersion')));
  else if (sarVersion !== 'v1' && sarVersion !== 'v1beta1') {
    errs.push(fieldError.notSupported(path.child('subjectAccessReviewVersion'), sarVersion, ['v1', 'v1beta1']));
  }

  const conditionsInput = input.matchConditions ?? [];
  const mcVersion = input.matchConditionSubjectAccessReviewVersion ?? '';
  if (mcVersion === '') {
    if (conditionsInput.length > 0) {
      errs.push(fieldError.required(path.child('matchConditionSubjectAccessReviewVersion'), 'required if match conditions are specified'));
    }
  } else if (mcVersion !== 'v1') {
    errs.push(fieldError.notSupported(path.child('matchConditionSubjectAccessReviewVersion'), mcVersion, ['v1']));
  }

  const failurePolicy = input.failurePolicy ?? '';
  if (failurePolicy === '') errs.push(fieldError.required(path.child('failurePolicy')));
  else if (failurePolicy !== 'NoOpinion' && failurePolicy !== 'Deny') {
    errs.push(fieldError.notSupported(path.child('failurePolicy'), failurePolicy, ['NoOpinion', 'Deny']));
  }

  let connectionInfo: WebhookConnectionInfo | undefined;
  const ci = input.connectionInfo;
  const ciPath = path.child('connectionInfo');
  const fileField = ciPath.child('platConfigFile');
  switch (ci?.type ?? '') {
    case '':
      errs.push(fieldError.required(ciPath.child('type')));
      break;
    case 'InClusterConfig':
      // Even an empty platConfigFile is rejected: the field must be absent.
      if (ci?.platConfigFile !== undefined) errs.push(fieldError.invalid(fileField, ci.platConfigFile, 'can only be set when type=PlatConfigFile'));
      else connectionInfo = { type: 'InClusterConfig' };
      break;
    case 'PlatConfig':
    case 'PlatConfigFile': {
      const file = ci?.platConfigFile ?? '';
      if (file === '') errs.push(fieldError.required(fileField));
      else if (!isAbsolute(file)) errs.push(fieldError.invalid(fileField, file, 'must be an absolute path'));
      else {
        let regular = false;
        try {
          regular = statSync(file).isFile();
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
          errs.push(fieldError.invalid(fileField, file, `error loading file: stat ${file}: ${reason}`));
          break;
        }
        if (!regular) errs.push(fieldError.invalid(fileField, file, 'must be a regular file'));
        else connectionInfo = { type: 'PlatConfigFile', platConfigFile: file };
      }
      break;
    }
    default:
      errs.push(fieldError.notSupported(ciPath.child('type'), ci?.type, [...webhookConnectionInfoTypes]));
  }

  const matchConditions: WebhookMatchCondition[] = [];
  if (conditionsInput.length > maxMatchConditions) {
    errs.push(fieldError.tooMany(path.child('matchConditions'), conditionsInput.length, maxMatchConditions));
  } else {
    const seen = new Set<string>();
    conditionsInput.forEach((condition, i) => {
      const p = path.child('matchConditions').index(i).child('expression');
      const expression = condition.expression ?? '';
      if (expression.trim() === '') {
        errs.push(fieldError.required(p));
        return;
      }
      if (seen.has(expression)) {
        errs.push(fieldError.duplicate(p, expression));
        return;
      }
      seen.add(expression);
      const compiled = compileField(p.toString(), 'request', expression, [CelTypes.Bool]);
      if (compiled.error) errs.push(compiled.error);
      else matchConditions.push({ expression, program: compiled.program });
    });
  }

  if (errs.length > before || !timeout || !authorizedTTL || !unauthorizedTTL || !connectionInfo) return undefined;
  return {
    authorizedTTL: authorizedTTL.text,
    authorizedTTLMs: authorizedTTL.ms,
    unauthorizedTTL: unauthorizedTTL.text,
    unauthorizedTTLMs: unauthorizedTTL.ms,
    timeout: timeout.text,
    timeoutMs: timeout.ms,
    subjectAccessReviewVersion: sarVersion as 'v1' | 'v1beta1',
    matchConditionSubjectAccessReviewVersion: mcVersion as 'v1' | '',
    failurePolicy: failurePolicy as 'NoOpinion' | 'Deny',
    connectionInfo,
    matchConditions,
  };
}

/**
 * Decodes, defaults and validates an AuthorizationConfiguration file. Never throws for bad input.
 */
export function loadAuthorizationConfiguration(
  data: string | Uint8Array,
  options: AuthorizationLoadOptions = {},
): LoadResult<AuthorizationConfiguration> {
  const decoded = decodeDocument(data, 'AuthorizationConfiguration', authorizationConfigurationSchema);
  if (!decoded.ok) return { ok: false, errors: decoded.errors, warnings: [] };
  // An empty file decodes, as in Kubernetes (load.LoadFromData), to a defaulted configuration
  // without authorizers, which validation then refuses.
  const value = decoded.value ?? { authorizers: [] };
  const known = new Set(options.supportedTypes ?? defaultAuthorizerTypes);
  const repeatable = new Set(options.repeatableTypes ?? defaultRepeatableAuthorizerTypes);
  const errs: FieldError[] = [];
  const input = value.authorizers ?? [];
  const root = FieldPath.root('authorizers');
  if (input.length === 0) errs.push(fieldError.required(root, 'at least one authorization mode must be defined'));

  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  const authorizers: AuthorizerConfiguration[] = [];
  input.forEach((a, i) => {
    const p = root.index(i);
    const type = a.type ?? '';
    if (type === '') {
      errs.push(fieldError.required(p.child('type')));
      return;
    }
    if (!known.has(type)) {
      errs.push(fieldError.notSupported(p.child('type'), type, [...known].sort()));
      return;
    }
    if (seenTypes.has(type) && !repeatable.has(type)) {
      errs.push(fieldError.duplicate(p.child('type'), type));
      return;
    }
    seenTypes.add(type);

    const name = a.name ?? '';
    const namePath = p.child('name');
    if (name === '') errs.push(fieldError.required(namePath));
    else if (seenNames.has(name)) errs.push(fieldError.duplicate(namePath, name));
    else {
      const problems = isDNS1123Label(name);
      if (problems.length > 0) errs.push(fieldError.invalid(namePath, name, `authorizer name is invalid: ${problems.join(', ')}`));
    }
    seenNames.add(name);

    if (type === 'Webhook') {
      if (!a.webhook) {
        errs.push(fieldError.required(p.child('webhook'), 'required when type=Webhook'));
        return;
      }
      const webhook = validateWebhook(a.webhook, p.child('webhook'), errs);
      if (webhook) authorizers.push({ type, name, webhook });
      return;
    }
    if (a.webhook) errs.push(fieldError.invalid(p.child('webhook'), 'non-null', 'may only be specified when type=Webhook'));
    // kube-apiserver names built-in authorizers after their type (flag-built configs do the same).
    const expected = type.toLowerCase();
    if (name !== '' && name !== expected) {
      errs.push(fieldError.invalid(namePath, name, `expected name ${expected} for authorizer ${type} instead of ${name}`));
    }
    authorizers.push({ type, name });
  });

  if (errs.length > 0) return { ok: false, errors: errs, warnings: [] };
  return {
    ok: true,
    config: { apiVersion: value.apiVersion!, kind: 'AuthorizationConfiguration', authorizers },
    warnings: [],
  };
}
