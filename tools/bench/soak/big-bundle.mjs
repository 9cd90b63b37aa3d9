// About 985 KiB of distinct CA certificates for a ClusterTrustBundle (the size of the issue's
// memory finding), generated once with @plat/x509's dev PKI (bundled from source with esbuild)
// and cached under node_modules/.cache/plat-soak.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { root } from '../lib/apiserver-harness.mjs';

export async function bigTrustBundle() {
  const cacheDir = path.join(root, 'node_modules', '.cache', 'plat-soak');
  const file = path.join(cacheDir, 'big-bundle.pem');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8');
  fs.mkdirSync(cacheDir, { recursive: true });
  const outfile = path.join(cacheDir, 'x509.mjs');
  await build({ absWorkingDir: root, entryPoints: [path.join(root, 'packages/x509/src/index.ts')], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', conditions: ['@plat/source'], logLevel: 'error' });
  const { createCertificateAuthority } = await import(outfile);
  let pem = '';
  for (let i = 0; ; i++) {
    const next = (await createCertificateAuthority({ commonName: `soak-anchor-${i}` })).certPem;
    if (pem.length + next.length > 985 * 1024) break;
    pem += next;
  }
  fs.writeFileSync(file, pem);
  return pem;
}
