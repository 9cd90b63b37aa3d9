// Jest global setup: bundles apps/apiserver/src/main.ts with the options of the Nx build target
// (tools/e2e/bundle-app.mjs), so that end-to-end tests run the real binary even in CI, where
// `npm test` runs right after `npm ci` without a build.
import { bundleApp } from '../../../tools/e2e/bundle-app.mjs';

export default async function globalSetup() {
  process.env.PLAT_APISERVER_BUNDLE = await bundleApp('apiserver');
}
