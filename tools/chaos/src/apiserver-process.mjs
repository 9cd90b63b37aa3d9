// The run starts the real apiserver binary through tools/e2e/apiserver-process.mjs, shared with
// the apps' end-to-end tests and the benchmarks. Plain JavaScript, as there; types beside it.
export { adminCredentials, startApiServer, tempDir } from '../../e2e/apiserver-process.mjs';
