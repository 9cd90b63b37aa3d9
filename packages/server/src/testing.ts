/**
 * For tests of servers built on @plat/server (the `@plat/server/testing` subpath): the reader of
 * the OpenAPI v2 document in gnostic's protobuf form, to check it against the JSON document.
 */
export { decodeGnosticDocument, withoutProto3ZeroValues } from './testing/gnostic-json.js';
