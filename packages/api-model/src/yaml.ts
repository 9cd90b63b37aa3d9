// The `@plat/api-model/yaml` subpath: YAML decoding, apart so the model alone does not load the YAML library.
export {
  YamlDecodeError,
  composeYamlDocuments,
  decodeYaml,
  decodeYamlDocuments,
  yamlSyntaxMessage,
  type ComposeYamlOptions,
  type DecodeYamlOptions,
  type DecodedYaml,
  type YamlDecodeErrorCode,
} from './yaml-decode.js';
export { resolveGoYamlNumber } from './go-yaml-numbers.js';
