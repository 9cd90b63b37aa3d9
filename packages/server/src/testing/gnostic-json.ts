import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { parse as yamlParse } from 'yaml';

type Json = Record<string, unknown>;

// The vendored gnostic OpenAPIv2.proto itself, not the generated descriptor the server encodes
// with: a decoder independent of the encoder (src/testing and dist/testing are both two levels
// below the package root, which holds tools/).
const protoFile = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'tools', 'gnostic', 'OpenAPIv2.proto');
let documentType: protobuf.Type | undefined;

/** A decoded gnostic message back to OpenAPI JSON (the inverse of gnostic's compiler). */
function toJson(type: protobuf.Type, msg: Json): unknown {
  switch (type.name) {
    case 'Any':
      return yamlParse(String(msg['yaml']));
    case 'TypeItem':
      return (msg['value'] as string[]).length === 1 ? (msg['value'] as string[])[0] : msg['value'];
    case 'StringArray':
      return msg['value'] ?? [];
    case 'ItemsItem':
      return toJson(type.root.lookupType('openapi.v2.Schema'), (msg['schema'] as Json[])[0]!);
  }
  if (type.oneofsArray.length === 1 && type.fieldsArray.every((f) => f.partOf)) {
    const chosen = msg[String(msg['oneof'])];
    const field = type.fields[String(msg['oneof'])]!;
    return field.resolvedType ? toJson(field.resolvedType as protobuf.Type, chosen as Json) : chosen;
  }
  const out: Json = {};
  for (const field of type.fieldsArray) {
    const v = msg[field.name];
    if (v === undefined) continue;
    const sub = field.resolvedType as protobuf.Type | null;
    if (field.name === 'vendorExtension' || (field.repeated && sub?.name.startsWith('Named'))) {
      const valueField = sub!.fields['value']!;
      for (const entry of v as Json[]) {
        const value = entry['value'];
        out[String(entry['name'])] = valueField.resolvedType ? toJson(valueField.resolvedType as protobuf.Type, (value ?? {}) as Json) : value;
      }
      continue;
    }
    const key = field.name === '_ref' ? '$ref' : field.name;
    if (!sub) out[key] = v;
    else out[key] = field.repeated ? (v as Json[]).map((m) => toJson(sub, m)) : toJson(sub, v as Json);
  }
  return out;
}

/**
 * An `/openapi/v2` answer in gnostic's protobuf form (`openapi.v2.Document`, what kubectl reads),
 * decoded with protobufjs from the vendored .proto: `message` as protobufjs gives it (oneofs
 * named, longs as numbers) and `json`, the OpenAPI document it carries, read back the way
 * kube-openapi reads gnostic documents (pkg/validation/spec gnostic.go, FromGnostic).
 */
export function decodeGnosticDocument(bytes: Uint8Array): { message: Json; json: unknown } {
  documentType ??= protobuf.loadSync(protoFile).lookupType('openapi.v2.Document');
  const message = documentType.toObject(documentType.decode(bytes), { longs: Number, oneofs: true }) as Json;
  return { message, json: toJson(documentType, message) };
}

/**
 * An OpenAPI JSON document without what proto3 cannot carry (false, "", 0 and [] outside
 * free-form values): what `decodeGnosticDocument(...).json` gives back for it.
 */
export function withoutProto3ZeroValues(value: unknown, inResponses = false): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => withoutProto3ZeroValues(v));
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json)) {
    if (inResponses) {
      // Response codes: `default` is one of them here.
      out[k] = withoutProto3ZeroValues(v);
      continue;
    }
    // Free-form values (an enum's values; an empty enum is no field) and security requirements
    // (maps to lists, empty ones included) are carried whole; additionalProperties is a oneof,
    // whose `false` is on the wire.
    if (k === 'enum' && Array.isArray(v) && v.length === 0) continue;
    if (k === 'default' || k === 'example' || k === 'enum' || k === 'security' || k.startsWith('x-') || (k === 'additionalProperties' && v === false)) {
      out[k] = v;
      continue;
    }
    if (v === false || v === '' || v === 0 || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = withoutProto3ZeroValues(v, k === 'responses');
  }
  return out;
}
