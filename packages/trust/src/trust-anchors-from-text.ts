import { clusterTrustBundleKind } from '@plat/api-model';
import { decodeObjects } from '@plat/client';
import { readPemEntries, validateTrustBundle } from '@plat/x509';
import { bundleEntry, trustAnchorsOf, type TrustAnchors } from './trust-anchors.js';
import { TrustError } from './trust-error.js';

/** Finding kinds a file may have without hiding anything from a report (inspect shows not-a-CA per anchor). */
const reportedElsewhere = new Set(['not-ca', 'no-basic-constraints', 'duplicate']);

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
  const problems: string[] = [];
  for (const t of texts) {
    for (const finding of validateTrustBundle(t.pem)) {
      if (reportedElsewhere.has(finding.kind) || finding.kind === 'empty') continue;
      problems.push(t.name ? `${t.name}: ${finding.detail}` : finding.detail);
    }
  }
  const anchors = trustAnchorsOf(texts.map((t) => bundleEntry({ metadata: { name: t.name }, spec: { trustBundle: t.pem } })));
  anchors.sources = anchors.sources.filter((s) => s.name !== '');
  if (anchors.anchors.length === 0) throw new TrustError('FileFailed', `no certificate found in ${source}`);
  return { anchors, problems };
}
