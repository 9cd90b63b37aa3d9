import { JsonDecodeError, decodeJson } from '@plat/api-model/json';
import { ClientError } from './client-error.js';

/** One event of a watch stream, as the server sends it (`ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`, `ERROR`). */
export interface WatchEvent<T = unknown> {
  type: string;
  object: T;
}

export const defaultMaxWatchEventBytes = 16 * 1024 * 1024;

function decodeEvent<T>(line: string): WatchEvent<T> {
  let value: unknown;
  try {
    // The decoder every answer goes through: nesting bounded, int64 exact.
    value = decodeJson(line).value;
  } catch (err) {
    if (!(err instanceof JsonDecodeError)) throw err;
    throw new ClientError('DecodeFailed', `unable to decode an event from the watch stream: ${err.message}`);
  }
  const ev = value as { type?: unknown; object?: unknown };
  if (!ev || typeof ev !== 'object' || typeof ev.type !== 'string' || !ev.object || typeof ev.object !== 'object') {
    throw new ClientError('DecodeFailed', 'unable to decode an event from the watch stream: not a watch event');
  }
  return { type: ev.type, object: ev.object as T };
}

/**
 * Frames a watch body into events: one JSON object per line, as kube-apiserver writes them
 * (blank lines skipped). A line longer than `maxEventBytes` ends the stream with DecodeFailed
 * instead of growing the buffer without bound.
 */
export async function* readWatchEvents<T>(body: AsyncIterable<Buffer | string>, maxEventBytes = defaultMaxWatchEventBytes): AsyncGenerator<WatchEvent<T>> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of body) {
    pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n', start)) {
      const line = pending.slice(start, nl);
      start = nl + 1;
      if (line.trim() !== '') yield decodeEvent<T>(line);
    }
    pending = pending.slice(start);
    // Each UTF-16 unit comes from at least one byte: the check never fires early, memory stays bounded.
    if (pending.length > maxEventBytes) {
      throw new ClientError('DecodeFailed', `a watch event is larger than ${maxEventBytes} bytes`);
    }
  }
  pending += decoder.decode();
  if (pending.trim() !== '') yield decodeEvent<T>(pending);
}
