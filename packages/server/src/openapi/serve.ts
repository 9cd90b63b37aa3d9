import type { RequestContext } from '../context.js';
import { negotiateOutput } from '../negotiation.js';
import { encodeBody, newPathNotFound, wantsPretty, writeBody, writeObject } from '../response.js';
import type { VersionInfo } from '../version.js';
import { buildOpenApiV2, buildOpenApiV3, documentHash } from './documents.js';
import type { OpenApiResource } from './operations.js';
import { negotiateOpenApiV2 } from './negotiate-v2.js';
import { openApiV2ProtoContentType, openApiV2ProtoEncoder } from './openapi-v2-proto.js';

/**
 * `/openapi/v2`, `/openapi/v3` and `/openapi/v3/<group-version>`. The documents are built once;
 * their bytes and hashes are cached. `rest` is the path after `/openapi`.
 */
export function openApiHandler(resources: readonly OpenApiResource[], versionInfo: VersionInfo): (ctx: RequestContext, rest: string[]) => void | Promise<void> {
  const openApiV2Document = buildOpenApiV2(resources, versionInfo);
  const openApiV2 = JSON.stringify(openApiV2Document);
  // kube-openapi gives both forms the JSON's ETag (the answer varies by Accept).
  const openApiV2ETag = `"${documentHash(openApiV2).slice(0, 32)}"`;
  // Encoded on the first request for it, once for this server's document.
  let openApiV2Proto: Promise<Buffer> | undefined;
  const openApiV3 = new Map<string, { body: string; hash: string }>();
  const groupVersions = new Map(resources.map((r) => [`${r.group}/${r.version}`, r]));
  for (const { group, version } of groupVersions.values()) {
    const body = JSON.stringify(buildOpenApiV3(resources, group, version, versionInfo));
    openApiV3.set(group ? `apis/${group}/${version}` : `api/${version}`, { body, hash: documentHash(body) });
  }

  return (ctx, rest) => {
    if (rest[0] === 'v2' && rest.length === 1) {
      const form = negotiateOpenApiV2(ctx.req.headers.accept);
      ctx.res.setHeader('Vary', 'Accept');
      if (form === 'yaml') return writeObject(ctx, 200, openApiV2Document, { format: 'yaml', contentType: 'application/yaml' });
      ctx.res.setHeader('ETag', openApiV2ETag);
      // http.ServeContent in kube-openapi's handler: a client holding this version gets 304.
      if (String(ctx.req.headers['if-none-match'] ?? '').includes(openApiV2ETag)) {
        ctx.res.setHeader('Content-Type', form === 'json' ? 'application/json' : openApiV2ProtoContentType);
        ctx.res.setHeader('Audit-Id', ctx.auditId);
        ctx.res.writeHead(304);
        ctx.res.end();
        return;
      }
      if (form === 'json') return writeBody(ctx, 200, 'application/json', Buffer.from(openApiV2));
      openApiV2Proto ??= openApiV2ProtoEncoder().then((encode) => encode(openApiV2Document));
      return openApiV2Proto.then((bytes) => writeBody(ctx, 200, openApiV2ProtoContentType, bytes));
    }
    if (rest[0] === 'v3' && rest.length === 1) {
      const paths: Record<string, unknown> = {};
      for (const [key, doc] of openApiV3) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
      writeObject(ctx, 200, { paths }, negotiateOutput(ctx.req.headers.accept, { allowedAs: [] }));
      return;
    }
    if (rest[0] === 'v3') {
      const doc = openApiV3.get(rest.slice(1).join('/'));
      if (!doc) throw newPathNotFound();
      negotiateOutput(ctx.req.headers.accept, { allowedAs: [] });
      ctx.res.setHeader('ETag', `"${doc.hash}"`);
      if (ctx.query.get('hash') === doc.hash) {
        // The hash names this exact content: clients may cache it for good (as Kubernetes allows).
        ctx.res.setHeader('Expires', new Date(Date.now() + 365 * 86400_000).toUTCString());
        ctx.res.setHeader('Cache-Control', 'public, immutable');
      }
      const body = wantsPretty(ctx) ? Buffer.from(encodeBody(JSON.parse(doc.body), 'json', true)) : Buffer.from(doc.body);
      writeBody(ctx, 200, 'application/json', body);
      return;
    }
    throw newPathNotFound();
  };
}
