import type { Type } from 'protobufjs';
import { stringify as yamlStringify } from 'yaml';
import { openApiV2ProtoDescriptor } from './openapi-v2-proto.generated.js';

/**
 * The OpenAPI v2 document as gnostic's `openapi.v2.Document` in protobuf, as kube-apiserver
 * serves it to kubectl (kube-openapi pkg/handler ToProtoBinary: gnostic's ParseDocument of the
 * JSON, then proto.Marshal). The conversion follows gnostic's compiler (openapiv2/OpenAPIv2.go,
 * NewDocument and the functions it calls): JSON keys map to the fields of the same name (`$ref`
 * to `_ref`), `x-` keys to `vendor_extension` entries, maps to repeated `Named*` entries in
 * document order, free-form values (`default`, `example`, `enum`, extensions) to `Any` holding
 * the value as YAML, and the oneofs (`type`, `items`, `additionalProperties`, parameters,
 * responses, security definitions) to the alternative gnostic's compiler would pick.
 */

/** The media type kubectl asks for; kube-openapi also offers the `.v1.0` spelling. */
export const openApiV2ProtoMediaTypes = ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'];
/** What kube-openapi answers as Content-Type for either. */
export const openApiV2ProtoContentType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** Schemas nest by `$ref`, so depth stays small; this bounds a walk over a malformed document. */
const maxDepth = 128;

type Json = Record<string, unknown>;
type Message = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * gnostic's NewAny: the value as YAML (compiler.Marshal). Scalars are written directly (a string
 * as a double-quoted scalar, whose escapes JSON's are a subset of); the rest through the YAML
 * library, once per distinct value of a document (the same extension values repeat throughout).
 */
function yamlOf(value: unknown, seen: Map<string, string>): string {
  if (value === null) return 'null\n';
  if (typeof value === 'boolean' || typeof value === 'number') return `${value}\n`;
  if (typeof value === 'string' && !/[\ud800-\udfff]/.test(value)) return `${JSON.stringify(value)}\n`;
  const key = JSON.stringify(value);
  let yaml = seen.get(key);
  if (yaml === undefined) {
    yaml = yamlStringify(value);
    seen.set(key, yaml);
  }
  return yaml;
}

/** Which JSON keys become the entries of a repeated `Named*` field that stands for a map. */
const mapKeys: Record<string, (key: string) => boolean> = {
  additionalProperties: () => true,
  // Paths: keys starting with "/"; Responses: three digits or "default" (gnostic's patterns).
  path: (key) => key.startsWith('/'),
  responseCode: (key) => /^([0-9]{3})$|^(default)$/.test(key),
};

class Converter {
  /** The YAML of the free-form values converted so far (bounded by the one document converted). */
  private readonly yaml = new Map<string, string>();

  constructor(private readonly root: { lookupType(name: string): Type }) {}

  private any(value: unknown): Message {
    return { yaml: yamlOf(value, this.yaml) };
  }

  private type(name: string): Type {
    return this.root.lookupType(`openapi.v2.${name}`);
  }

  /** `value` as a message of `type` (a plain object protobufjs encodes). */
  message(type: Type, value: unknown, depth: number): Message | undefined {
    if (depth > maxDepth) throw new Error(`OpenAPI v2 document nested deeper than ${maxDepth}`);
    const special = this.oneof(type.name, value, depth);
    if (special !== null) return special;
    if (!isObject(value)) return undefined;
    const out: Message = {};
    for (const field of type.fieldsArray) {
      const name = field.name;
      if (name === 'vendorExtension') {
        const ext = Object.entries(value)
          .filter(([key]) => key.startsWith('x-'))
          .map(([key, v]) => ({ name: key, value: this.any(v) }));
        if (ext.length) out[name] = ext;
        continue;
      }
      const fieldType = field.resolvedType as Type | null;
      const pickKeys = field.repeated && fieldType?.name.startsWith('Named') ? mapKeys[name] : undefined;
      if (pickKeys) {
        // A map: the entries are the (matching) keys of this very object.
        const valueType = fieldType!.fields['value']!;
        const entries: Message[] = [];
        for (const [key, v] of Object.entries(value)) {
          if (!pickKeys(key)) continue;
          entries.push({ name: key, value: this.fieldValue(valueType.resolvedType as Type | null, valueType.type, v, depth + 1) });
        }
        if (entries.length) out[name] = entries;
        continue;
      }
      const v = value[name === '_ref' ? '$ref' : name];
      // null is a value for a free-form field (`default: null` is YAML `null`), nothing elsewhere.
      if (v === undefined || (v === null && fieldType?.name !== 'Any')) continue;
      if (field.repeated) {
        const items = Array.isArray(v) ? v : [v];
        const converted = items.map((item) => this.fieldValue(fieldType, field.type, item, depth + 1)).filter((x) => x !== undefined);
        if (converted.length) out[name] = converted;
      } else {
        const converted = this.fieldValue(fieldType, field.type, v, depth + 1);
        if (converted !== undefined) out[name] = converted;
      }
    }
    return out;
  }

  private fieldValue(type: Type | null, scalar: string, value: unknown, depth: number): unknown {
    if (type) return type.name === 'Any' ? this.any(value) : this.message(type, value, depth);
    // proto3 leaves zero values out, as gnostic's proto.Marshal does.
    if (value === '' || value === false || value === 0) return undefined;
    if (scalar === 'string') return typeof value === 'string' ? value : undefined;
    if (scalar === 'bool') return typeof value === 'boolean' ? value : undefined;
    return typeof value === 'number' ? value : undefined;
  }

  /** The messages whose JSON is not an object of their fields; null for all others. */
  private oneof(typeName: string, value: unknown, depth: number): Message | undefined | null {
    const as = (name: string, alternative: string): Message | undefined => {
      const converted = this.message(this.type(name), value, depth + 1);
      return converted && { [alternative]: converted };
    };
    switch (typeName) {
      case 'TypeItem':
      case 'StringArray':
        return { value: (Array.isArray(value) ? value : [value]).filter((v) => typeof v === 'string') };
      case 'ItemsItem': {
        const schemas = (Array.isArray(value) ? value : [value]).map((v) => this.message(this.type('Schema'), v, depth + 1)).filter(Boolean);
        return { schema: schemas };
      }
      case 'AdditionalPropertiesItem':
        return typeof value === 'boolean' ? { boolean: value } : as('Schema', 'schema');
      case 'ParametersItem':
        return isObject(value) && '$ref' in value ? as('JsonReference', 'jsonReference') : as('Parameter', 'parameter');
      case 'Parameter':
        return isObject(value) && value['in'] === 'body' ? as('BodyParameter', 'bodyParameter') : as('NonBodyParameter', 'nonBodyParameter');
      case 'NonBodyParameter': {
        const kinds: Record<string, [string, string]> = {
          header: ['HeaderParameterSubSchema', 'headerParameterSubSchema'],
          formData: ['FormDataParameterSubSchema', 'formDataParameterSubSchema'],
          query: ['QueryParameterSubSchema', 'queryParameterSubSchema'],
          path: ['PathParameterSubSchema', 'pathParameterSubSchema'],
        };
        const kind = isObject(value) ? kinds[String(value['in'])] : undefined;
        return kind ? as(kind[0], kind[1]) : undefined;
      }
      case 'ResponseValue':
        return isObject(value) && '$ref' in value ? as('JsonReference', 'jsonReference') : as('Response', 'response');
      case 'SchemaItem':
        return isObject(value) && value['type'] === 'file' ? as('FileSchema', 'fileSchema') : as('Schema', 'schema');
      case 'SecurityDefinitionsItem': {
        if (!isObject(value)) return undefined;
        if (value['type'] === 'basic') return as('BasicAuthenticationSecurity', 'basicAuthenticationSecurity');
        if (value['type'] === 'apiKey') return as('ApiKeySecurity', 'apiKeySecurity');
        const flows: Record<string, [string, string]> = {
          implicit: ['Oauth2ImplicitSecurity', 'oauth2ImplicitSecurity'],
          password: ['Oauth2PasswordSecurity', 'oauth2PasswordSecurity'],
          application: ['Oauth2ApplicationSecurity', 'oauth2ApplicationSecurity'],
          accessCode: ['Oauth2AccessCodeSecurity', 'oauth2AccessCodeSecurity'],
        };
        const flow = value['type'] === 'oauth2' ? flows[String(value['flow'])] : undefined;
        return flow ? as(flow[0], flow[1]) : undefined;
      }
      default:
        return null;
    }
  }
}

/**
 * An encoder of JSON documents. protobufjs (its light build, with the generated descriptor) is
 * loaded on first use: most clients never ask for this form, kubectl asks once per cache miss.
 */
export async function openApiV2ProtoEncoder(): Promise<(doc: Json) => Buffer> {
  const protobuf = (await import('protobufjs/light.js')).default;
  const root = protobuf.Root.fromJSON(openApiV2ProtoDescriptor as unknown as protobuf.INamespace);
  const documentType = root.lookupType('openapi.v2.Document');
  return (doc) => Buffer.from(documentType.encode(documentType.fromObject(new Converter(root).message(documentType, doc, 0) ?? {})).finish());
}
