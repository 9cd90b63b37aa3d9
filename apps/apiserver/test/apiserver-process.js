// The apiserver's end-to-end tests start the binary through tools/e2e/apiserver-process.mjs (shared
// with clientctl's process tests and the benchmarks); this adds the bundle the jest global setup
// built. Plain JavaScript, so plain node loads it too; its types are in apiserver-process.d.ts.
import fs from 'node:fs';
import { startApiServer as startBundle } from '../../../tools/e2e/apiserver-process.mjs';

export { adminCredentials, tempDir } from '../../../tools/e2e/apiserver-process.mjs';

/** The bundle the jest global setup (test/global-setup.mjs) built, from PLAT_APISERVER_BUNDLE. */
export function bundlePath() {
  const bundle = process.env.PLAT_APISERVER_BUNDLE;
  if (!bundle || !fs.existsSync(bundle)) throw new Error('the apiserver bundle is missing: jest globalSetup builds it (test/global-setup.mjs)');
  return bundle;
}

/** Builds the bundle as the jest global setup does (the Nx build's options) and returns its path. */
export async function buildApiServerBundle() {
  const { default: globalSetup } = await import('./global-setup.mjs');
  await globalSetup();
  return bundlePath();
}

/** Starts the bundled apiserver (by default the one the jest global setup built) on a free port. */
export function startApiServer({ bundle = bundlePath(), ...opts }) {
  return startBundle({ bundle, ...opts });
}
