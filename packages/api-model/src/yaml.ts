// The `@plat/api-model/yaml` subpath: YAML decoding, apart so the model alone does not load the YAML library.
export { YamlDecodeError, decodeYaml, decodeYamlDocuments, type DecodeYamlOptions, type DecodedYaml, type YamlDecodeErrorCode } from './yaml-decode.js';
