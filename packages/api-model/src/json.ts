// The `@plat/api-model/json` subpath: the JSON codec alone, for callers that load nothing else
// of the model (the REST client decodes every answer with it, without zod).
export { JsonDecodeError, decodeJson, decodeStoredJson, isInt64, maxNestingDepth, type DecodeJsonOptions, type DecodedJson, type JsonDecodeErrorCode } from './json-decode.js';
export { encodeJson } from './json-encode.js';
