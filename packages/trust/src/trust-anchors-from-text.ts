import { createHash } from 'node:crypto';
import { clusterTrustBundleKind } from '@plat/api-model';
import { decodeObjects } from '@plat/client';
import { describeTrustAnchor, readPemEntries } from '@plat/x509';
import { bundleEntry, trustAnchorsOf, type TrustAnchors } from './trust-anchors.js';
import { TrustError } from './trust-error.js';

/**
 * What a stored bundle could not hold and a report would leave out, in ClusterTrustBundle
 * validation's words (not-a-CA anchors are shown per anchor instead, duplicates merge).
 */
function problemsOf(pem: string): string[] {
  const problems: string[] = [];
  // Validation skips blocks that do not decode, as Go's pem.Decode does, and numbers the rest.
  let i = -1;
  for (const e of readPemEntries(pem)) {
    if (e.kind === 'malformed') continue;
    i++;
    if (e.type !== 'CERTIFICATE') problems.push(`entry ${i} has bad block type: ${e.type}`);
    else if (e.headers.size > 0) problems.push(`entry ${i} has PEM block headers`);
    else if (!describeTrustAnchor(e.bytes, createHash('sha256').update(e.bytes).digest('hex'))) problems.push(`entry ${i} does not parse as X.509`);
  }
  return problems;
}

/**
 * The anchors of a local file, for `trust inspect -f`: a PEM bundle (what `trust sync` writes, or
 * any CA file), or manifests holding ClusterTrustBundles (YAML or JSON, several documents, a
 * List), whose trustBundles are merged. `problems` lists what would make a stored bundle invalid
 * (blocks that are not certificates or not X.509, PEM headers), in ClusterTrustBundle
 * validation's words; a file without any certificate is a TrustError `FileFailed`.
 */
export function trustAnchorsFromText(text: string, source: string): { anchors: TrustAnchors; problems: string[] } {
  let texts: { name: string; pem: string }[];
  // A PEM block starts at the beginning of a line; in a manifest it is indented or escaped.
  if (readPemEntries(text).length > 0) {
    texts = [{ name: '', pem: text }];
  } else {
    let objects: ReturnType<typeof decodeObjects>;
    try {
      objects = decodeObjects(text, source);
    } catch (err) {
      throw new TrustError('FileFailed', `${source}: neither a PEM bundle nor ClusterTrustBundle manifests: ${(err as Error).message}`, { cause: err });
    }
    texts = objects
      .filter((o) => o.kind === clusterTrustBundleKind)
      .map((o) => {
        const obj = o as { metadata?: { name?: string }; spec?: { trustBundle?: unknown } };
        return { name: obj.metadata?.name ?? '', pem: typeof obj.spec?.trustBundle === 'string' ? obj.spec.trustBundle : '' };
      });
  }
  const problems = texts.flatMap((t) => problemsOf(t.pem).map((p) => (t.name ? `${t.name}: ${p}` : p)));
  const anchors = trustAnchorsOf(texts.map((t) => bundleEntry({ metadata: { name: t.name }, spec: { trustBundle: t.pem } })));
  anchors.sources = anchors.sources.filter((s) => s.name !== '');
  if (anchors.anchors.length === 0) throw new TrustError('FileFailed', `no certificate found in ${source}`);
  return { anchors, problems };
}
