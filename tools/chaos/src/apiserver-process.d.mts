export { adminCredentials, startApiServer, tempDir, type Credentials, type StartedApiServer, type StartApiServerOptions } from '../../e2e/apiserver-process.mjs';
