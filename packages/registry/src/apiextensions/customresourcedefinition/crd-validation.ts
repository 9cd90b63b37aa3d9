import {
  FieldPath,
  fieldError,
  isDNS1035Label,
  isDNS1123Subdomain,
  nameIsDNSSubdomain,
  omitValue,
  validateImmutableField,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldError,
} from '@plat/api-model';
import { isConditionTrue, type CustomResourceDefinition, type CustomResourceDefinitionNames, type JsonSchemaProps } from './crd-types.js';

/** Depth bound of a schema walk (a CRD's schema nests objects; the body's depth is bounded before). */
export const maxSchemaDepth = 64;

/**
 * What plat does not implement of JSONSchemaProps: refused as Kubernetes' specStandardValidatorV3
 * refuses what it does not support (`Forbidden: <name> is not supported`). `default` is among
 * them: plat does not apply defaults to custom resources. Of the value constraints, plat enforces
 * type, enum, required, minimum and maximum (with exclusiveMinimum/exclusiveMaximum).
 */
const unsupportedKeywords = [
  'default', 'id', 'additionalItems', 'patternProperties', 'definitions', 'dependencies', '$ref', 'x-kubernetes-validations', 'allOf', 'anyOf', 'oneOf',
  'not', 'pattern', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'multipleOf',
];

const types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

/**
 * Kubernetes' ValidateCustomResourceDefinitionNames
 * (staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go).
 */
export function validateNames(names: CustomResourceDefinitionNames, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const label = (value: string | undefined, at: FieldPath, prefix = '', lower = false) => {
    if (!value) return;
    const problems = isDNS1035Label(lower ? value.toLowerCase() : value);
    if (problems.length) errs.push(fieldError.invalid(at, value, prefix + problems.join(',')));
  };
  label(names.plural, path.child('plural'));
  label(names.singular, path.child('singular'));
  label(names.kind, path.child('kind'), 'may have mixed case, but should otherwise match: ', true);
  label(names.listKind, path.child('listKind'), 'may have mixed case, but should otherwise match: ', true);
  (names.shortNames ?? []).forEach((s, i) => label(s, path.child('shortNames').index(i)));
  if (names.kind && names.kind === names.listKind) errs.push(fieldError.invalid(path.child('listKind'), names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((c, i) => label(c, path.child('categories').index(i)));
  return errs;
}

/**
 * A structural schema (Kubernetes' structural/validation.go, validateStructuralInvariants and
 * validateStructuralCompleteness, for the keywords plat supports): every specified field and
 * array item has a type (none under x-kubernetes-int-or-string or where unknown fields are
 * preserved), the root is an object, and properties and additionalProperties exclude each other.
 */
export function validateStructuralSchema(schema: JsonSchemaProps, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (schema.type !== 'object') {
    if (!schema.type) errs.push(fieldError.required(path.child('type'), 'must not be empty at the root'));
    else errs.push(fieldError.invalid(path.child('type'), schema.type, 'must be object at the root'));
  }
  walkSchema(schema, path, 'root', 0, errs);
  return errs;
}

function walkSchema(s: JsonSchemaProps, path: FieldPath, where: 'root' | 'field' | 'item' | 'map', depth: number, errs: FieldError[]): void {
  if (depth > maxSchemaDepth) {
    errs.push(fieldError.forbidden(path, `must not nest more than ${maxSchemaDepth} levels`));
    return;
  }
  if (s === null || typeof s !== 'object' || Array.isArray(s)) {
    errs.push(fieldError.invalid(path, s, 'must be a schema object'));
    return;
  }
  for (const key of unsupportedKeywords) {
    if (s[key] !== undefined) errs.push(fieldError.forbidden(path.child(key), `${key} is not supported`));
  }
  if (s.uniqueItems === true) errs.push(fieldError.forbidden(path.child('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (s.type !== undefined && !types.includes(s.type)) {
    if (s.type === 'null') errs.push(fieldError.forbidden(path.child('type'), 'type cannot be set to null'));
    else errs.push(fieldError.notSupported(path.child('type'), s.type, types));
  }
  if (intOrString && s.type) errs.push(fieldError.invalid(path.child('type'), s.type, 'must be empty if x-kubernetes-int-or-string is true'));
  if (!s.type && !intOrString && !preserve) {
    if (where === 'field') errs.push(fieldError.required(path.child('type'), 'must not be empty for specified object fields'));
    if (where === 'item') errs.push(fieldError.required(path.child('type'), 'must not be empty for specified array items'));
    if (where === 'map') errs.push(fieldError.required(path.child('type'), 'must not be empty for specified object fields'));
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === false) errs.push(fieldError.invalid(path.child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  if (s.properties !== undefined) {
    if (s.type !== 'object' && s.type !== undefined) errs.push(fieldError.forbidden(path.child('properties'), 'must only be used with type object'));
    for (const [name, child] of Object.entries(s.properties ?? {})) walkSchema(child, path.child('properties').key(name), 'field', depth + 1, errs);
  }
  const additional = s.additionalProperties;
  if (additional !== undefined) {
    if (s.properties && Object.keys(s.properties).length && (additional === false || typeof additional === 'object')) {
      errs.push(fieldError.forbidden(path.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    if (typeof additional === 'object') walkSchema(additional, path.child('additionalProperties'), 'map', depth + 1, errs);
  }
  if (s.items !== undefined) {
    if (Array.isArray(s.items)) errs.push(fieldError.forbidden(path.child('items'), 'items must be a schema object and not an array'));
    else walkSchema(s.items, path.child('items'), 'item', depth + 1, errs);
  } else if (s.type === 'array') {
    errs.push(fieldError.required(path.child('items'), 'must be specified'));
  }
  if (s.required !== undefined && !(Array.isArray(s.required) && s.required.every((r) => typeof r === 'string'))) {
    errs.push(fieldError.invalid(path.child('required'), s.required, 'must be a list of field names'));
  }
  if (s.enum !== undefined && !Array.isArray(s.enum)) errs.push(fieldError.invalid(path.child('enum'), omitValue, 'must be a list'));
}

/** The spec's rules (Kubernetes' ValidateCustomResourceDefinitionSpec, for what plat supports). */
function validateSpec(crd: CustomResourceDefinition): FieldError[] {
  const spec = crd.spec ?? {};
  const path = FieldPath.root('spec');
  const errs: FieldError[] = [];
  const group = spec.group ?? '';
  if (!group) errs.push(fieldError.required(path.child('group')));
  else if (isDNS1123Subdomain(group).length) errs.push(fieldError.invalid(path.child('group'), group, isDNS1123Subdomain(group).join(',')));
  else if (group.split('.').length < 2) errs.push(fieldError.invalid(path.child('group'), group, 'should be a domain with at least one dot'));

  const scope = spec.scope ?? '';
  if (!scope) errs.push(fieldError.required(path.child('scope')));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(fieldError.notSupported(path.child('scope'), scope, ['Cluster', 'Namespaced']));

  const versions = spec.versions ?? [];
  const versionsPath = path.child('versions');
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const at = versionsPath.index(i);
    const name = v.name ?? '';
    if (seen.has(name)) unique = false;
    seen.add(name);
    const problems = isDNS1035Label(name);
    if (problems.length) errs.push(fieldError.invalid(at.child('name'), name, problems.join(',')));
    const schema = v.schema?.openAPIV3Schema;
    const schemaPath = at.child('schema', 'openAPIV3Schema');
    if (!schema) errs.push(fieldError.required(schemaPath, 'schemas are required'));
    else errs.push(...validateStructuralSchema(schema, schemaPath));
    if (v.subresources?.scale !== undefined) errs.push(fieldError.forbidden(at.child('subresources', 'scale'), 'the scale subresource is not supported'));
  });
  if (versions.length === 0) errs.push(fieldError.invalid(versionsPath, omitValue, 'must have exactly one version marked as storage version'));
  if (!unique) errs.push(fieldError.invalid(versionsPath, omitValue, 'must contain unique version names'));
  const storage = versions.filter((v) => v.storage === true).length;
  if (versions.length && storage !== 1) errs.push(fieldError.invalid(versionsPath, omitValue, 'must have exactly one version marked as storage version'));
  if (versions.length && !versions.some((v) => v.served === true)) errs.push(fieldError.invalid(versionsPath, omitValue, 'must have at least one version marked as served'));

  const names = spec.names ?? {};
  const namesPath = path.child('names');
  if (!names.plural) errs.push(fieldError.required(namesPath.child('plural')));
  if (!names.singular) errs.push(fieldError.required(namesPath.child('singular')));
  if (!names.kind) errs.push(fieldError.required(namesPath.child('kind')));
  if (!names.listKind) errs.push(fieldError.required(namesPath.child('listKind')));
  errs.push(...validateNames(names, namesPath));

  // Only the None strategy: every version holds the same fields (plat has no conversion webhooks).
  const strategy = spec.conversion?.strategy;
  if (strategy !== undefined && strategy !== 'None') errs.push(fieldError.notSupported(path.child('conversion', 'strategy'), strategy, ['None']));
  if (spec.preserveUnknownFields === true) {
    errs.push(fieldError.invalid(path.child('preserveUnknownFields'), true, 'must be false in order to use defaults in the schema'));
  }
  return errs;
}

/** The rules of a create and an update beyond metadata: the name `<plural>.<group>`, the spec, the stored versions. */
function validateContent(crd: CustomResourceDefinition): FieldError[] {
  const spec = crd.spec ?? {};
  const name = crd.metadata?.name ?? '';
  const expected = `${spec.names?.plural ?? ''}.${spec.group ?? ''}`;
  const errs: FieldError[] = [];
  if (name && name !== expected) errs.push(fieldError.invalid(FieldPath.root('metadata', 'name'), name, 'must be spec.names.plural+"."+spec.group'));
  return [...errs, ...validateSpec(crd), ...validateStoredVersions(crd)];
}

/** Kubernetes' ValidateCustomResourceDefinition: metadata, the name `<plural>.<group>`, the spec. */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition): FieldError[] {
  return [...validateObjectMeta(crd.metadata, { namespaced: false, nameFn: nameIsDNSSubdomain }), ...validateContent(crd)];
}

/** status.storedVersions must name versions of the spec (ValidateCustomResourceDefinitionStoredVersions). */
function validateStoredVersions(crd: CustomResourceDefinition): FieldError[] {
  const names = new Set((crd.spec?.versions ?? []).map((v) => v.name));
  const path = FieldPath.root('status', 'storedVersions');
  return (crd.status?.storedVersions ?? []).flatMap((v, i) => (names.has(v) ? [] : [fieldError.invalid(path.index(i), v, 'must appear in spec.versions')]));
}

/**
 * Kubernetes' ValidateCustomResourceDefinitionUpdate: the create rules, the metadata update rules;
 * group and plural never change, scope and kind not once the CRD is Established.
 */
export function validateCustomResourceDefinitionUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  const errs = [...validateObjectMetaUpdate(crd.metadata, old.metadata), ...validateContent(crd)];
  const path = FieldPath.root('spec');
  if (isConditionTrue(old, 'Established')) {
    errs.push(...validateImmutableField(crd.spec?.scope, old.spec?.scope, path.child('scope')));
    errs.push(...validateImmutableField(crd.spec?.names?.kind, old.spec?.names?.kind, path.child('names', 'kind')));
  }
  errs.push(...validateImmutableField(crd.spec?.group, old.spec?.group, path.child('group')));
  errs.push(...validateImmutableField(crd.spec?.names?.plural, old.spec?.names?.plural, path.child('names', 'plural')));
  return errs;
}

/** Kubernetes' ValidateUpdateCustomResourceDefinitionStatus: metadata update rules and the accepted names. */
export function validateCustomResourceDefinitionStatusUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  return [...validateObjectMetaUpdate(crd.metadata, old.metadata), ...validateNames(crd.status?.acceptedNames ?? {}, FieldPath.root('status', 'acceptedNames'))];
}
