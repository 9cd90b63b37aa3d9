import { encodeJson, isStatusError, type ApiObject, type Status } from '@plat/api-model';
import type { Watch, WatchEvent } from '@plat/storage';
import type { RequestContext } from '../context.js';
import { negotiateOutput } from '../negotiation.js';
import { setCommonHeaders, toStatusError } from '../response.js';
import { parseIncludeObject, toTable } from '../table.js';
import { parseListOptions } from './list-options.js';
import { scopePrefix, withTypeMeta, type ResourceScope } from './scope.js';
import { WatchEventLines } from './watch-event-lines.js';

interface OutEvent {
  type: string;
  object: unknown;
}

/**
 * Maps a storage event to what this watcher sees through its selectors, as Kubernetes' cacher
 * does: an object entering the selection is ADDED, one leaving it is DELETED (its previous state
 * at the new resourceVersion), anything outside is dropped.
 */
export function filterEvent(ev: WatchEvent, matches: (obj: ApiObject) => boolean): { type: string; object: ApiObject | Status } | undefined {
  switch (ev.type) {
    case 'ADDED':
      return matches(ev.object as ApiObject) ? { type: 'ADDED', object: ev.object } : undefined;
    case 'MODIFIED': {
      const cur = matches(ev.object as ApiObject);
      const prev = ev.prevObject ? matches(ev.prevObject) : cur;
      if (cur && prev) return { type: 'MODIFIED', object: ev.object };
      if (cur) return { type: 'ADDED', object: ev.object };
      if (prev && ev.prevObject) {
        const rv = (ev.object as ApiObject).metadata?.resourceVersion;
        return { type: 'DELETED', object: { ...ev.prevObject, metadata: { ...ev.prevObject.metadata, resourceVersion: rv } } };
      }
      return undefined;
    }
    case 'DELETED':
      return matches(ev.prevObject ?? (ev.object as ApiObject)) ? { type: 'DELETED', object: ev.object } : undefined;
    default:
      return { type: ev.type, object: ev.object };
  }
}

/** Node's timers take at most 2^31-1 ms (about 24.8 days); a longer delay would fire after 1 ms. */
const maxTimerDelayMs = 2 ** 31 - 1;

/**
 * Calls `fn` after `ms`, however long (Kubernetes honours any timeoutSeconds): a delay beyond what
 * one Node timer takes is waited for in steps. Returns the cancel function.
 */
export function setLongTimeout(fn: () => void, ms: number, stepMs = maxTimerDelayMs): () => void {
  const due = Date.now() + ms;
  let timer: NodeJS.Timeout;
  const arm = (): void => {
    const left = due - Date.now();
    timer = left > stepMs ? setTimeout(arm, stepMs) : setTimeout(fn, Math.max(0, left));
  };
  arm();
  return () => clearTimeout(timer);
}

/** The event lines of each server's scopes (one bounded cache per server's EncodedObjects). */
const eventLines = new WeakMap<object, WatchEventLines>();

function eventLinesOf(scope: ResourceScope): WatchEventLines {
  let lines = eventLines.get(scope.encodings);
  if (lines === undefined) eventLines.set(scope.encodings, (lines = new WatchEventLines()));
  return lines;
}

/** GET .../<resource>?watch=true: a chunked stream of JSON watch events. */
export async function watchResource(scope: ResourceScope, ctx: RequestContext): Promise<void> {
  const choice = negotiateOutput(ctx.req.headers.accept, { allowedAs: ['Table'] });
  const includeObject = parseIncludeObject(ctx.query.get('includeObject'));
  const opts = parseListOptions(scope, ctx, { watch: true, name: ctx.info.name || undefined });
  const min = scope.minRequestTimeoutSeconds;
  const timeoutSeconds = opts.timeoutSeconds && opts.timeoutSeconds > 0 ? opts.timeoutSeconds : min + Math.random() * min;

  const { res } = ctx;
  let firstTable = true;
  const lines = choice.as === 'Table' ? undefined : eventLinesOf(scope);
  const encode = (ev: OutEvent): string | Buffer => {
    // Every watcher of a change writes the same line: encoded once (WatchEventLines).
    if (lines && (ev.type === 'ADDED' || ev.type === 'MODIFIED')) return lines.line(scope, ev.type, ev.object as ApiObject);
    let object = ev.type === 'ERROR' ? ev.object : withTypeMeta(scope, ev.object as ApiObject);
    if (choice.as === 'Table' && (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED')) {
      object = toTable(scope.def, [object as ApiObject], { choice, includeObject, withColumns: firstTable });
      firstTable = false;
    }
    return `${encodeJson({ type: ev.type, object })}\n`;
  };
  const startStream = () => {
    if (res.headersSent) return;
    setCommonHeaders(ctx);
    res.setHeader('Content-Type', choice.as === 'Table' ? choice.contentType : 'application/json');
    res.writeHead(200);
    res.flushHeaders?.();
  };
  // A client that stops reading holds `send` in backpressure. When the watch ends meanwhile (its
  // timeout, shutdown), the connection is cut instead: the end of the stream could not reach the
  // client anyway, and a stuck client must not hold the server's socket for ever.
  let unblock: (() => void) | undefined;
  let stuck = false;
  const send = async (ev: OutEvent): Promise<void> => {
    if (res.writableEnded) return;
    if (!res.write(encode(ev))) {
      // Backpressure: wait for the client to read (or go away) before queueing more.
      await new Promise<void>((resolve) => {
        const done = () => {
          (res as unknown as NodeJS.EventEmitter).off('drain', done).off('close', done);
          unblock = undefined;
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
        unblock = () => {
          stuck = true;
          done();
        };
      });
    }
  };

  let watch: Watch;
  try {
    watch = await scope.storage.watch(scopePrefix(scope, ctx.info.namespace), {
      resourceVersion: opts.resourceVersion,
      sendInitialEvents: opts.sendInitialEvents,
      allowWatchBookmarks: opts.allowWatchBookmarks,
      bookmarkIntervalMs: scope.watchBookmarkIntervalMs,
      // The stream ends at timeoutSeconds (the timer below): the last bookmark goes out 2 s before.
      deadline: Date.now() + timeoutSeconds * 1000,
      signal: ctx.signal,
      request: ctx,
    });
  } catch (err) {
    // Kubernetes answers a watch from a compacted revision with 200 and one ERROR event.
    if (isStatusError(err) && err.code === 410) {
      startStream();
      await send({ type: 'ERROR', object: err.toJSON() });
      res.end();
      return;
    }
    throw err;
  }

  startStream();
  const stop = () => {
    watch.stop();
    unblock?.();
  };
  const untrack = scope.trackWatch(stop);
  const cancelTimer = setLongTimeout(stop, timeoutSeconds * 1000);
  ctx.signal.addEventListener('abort', stop, { once: true });
  res.on('close', stop);
  const gauge = scope.metrics.registeredWatchers.labels(scope.def.group, scope.def.version, scope.def.kind);
  const sent = scope.metrics.watchEvents.labels(scope.def.group, scope.def.version, scope.def.kind);
  gauge.inc();
  // After the initial state, resourceVersions on one stream only go up: an event at or below the
  // last one sent would be a duplicate, a reordering or a deleted object coming back for the client.
  let lastSent = 0;
  try {
    for await (const ev of watch) {
      if (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED') {
        const rv = Number((ev.object as ApiObject).metadata?.resourceVersion);
        if (!ev.initial && rv <= lastSent) {
          scope.metrics.watchDuplicateDropped.labels('http').inc();
          scope.logger?.error('Dropped a watch event not newer than the last one sent', { layer: 'http', type: ev.type, key: ev.key, resourceVersion: rv, lastSent });
          continue;
        }
        if (rv > lastSent) lastSent = rv;
      }
      const out = filterEvent(ev, opts.matches);
      if (!out) continue;
      await send(out);
      sent.inc();
      if (out.type === 'ERROR' || res.writableEnded || stuck) break;
    }
  } catch (err) {
    await send({ type: 'ERROR', object: toStatusError(err).toJSON() });
  } finally {
    gauge.dec();
    cancelTimer();
    ctx.signal.removeEventListener('abort', stop);
    untrack();
    watch.stop();
    if (stuck) res.destroy?.();
    else if (!res.writableEnded) res.end();
  }
}
