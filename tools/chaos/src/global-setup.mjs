// Jest global setup: bundles apps/apiserver as its Nx build does (tools/e2e/bundle-app.mjs), so
// the run starts the real binary even right after `npm ci`, without a build.
import { bundleApp } from '../../e2e/bundle-app.mjs';

export default async function globalSetup() {
  process.env.PLAT_APISERVER_BUNDLE = await bundleApp('apiserver');
}
