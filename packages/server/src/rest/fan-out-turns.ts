/** How long watchers may write events in one turn of the event loop before other work gets a turn. */
export const fanOutSliceMs = 5;

let sliceOpen = false;
let sliceEnds = 0;
/** Watchers waiting for a turn, first come first served. */
let waiting: Array<() => void> = [];
let head = 0;
let scheduled = false;
/** What handling one event costs a watcher, in ms (a moving average of what they report). */
let costMs = 0.05;

function closeSlice(): void {
  sliceOpen = false;
}

/** In the check phase, after the poll phase served what arrived: the next watchers, as many as fit in a slice. */
function nextTurn(): void {
  scheduled = false;
  const count = Math.max(1, Math.floor(fanOutSliceMs / costMs));
  const end = Math.min(waiting.length, head + count);
  for (; head < end; head++) {
    const resolve = waiting[head]!;
    waiting[head] = undefined as unknown as () => void;
    resolve();
  }
  if (head < waiting.length) {
    scheduled = true;
    setImmediate(nextTurn);
  } else {
    waiting = [];
    head = 0;
  }
}

/**
 * Spreads the fan-out of one change to many watchers over turns of the event loop. A change
 * resolves every watcher's wait for its next event at once, so without this their sends all run
 * as one chain of microtasks: with 10,000 watchers that held the loop for hundreds of
 * milliseconds, and every GET arriving meanwhile waited for all of it. A watcher calls this before
 * it handles an event: within the first `fanOutSliceMs` of a turn, with nobody waiting, it goes on
 * at once (undefined); otherwise it awaits the returned promise. Waiting watchers go on in the
 * order they came, as many per turn as fit in `fanOutSliceMs` at the cost they report
 * (`fanOutCost`), each turn after the poll phase has served the requests that arrived. Each
 * watcher's own events stay in order: it handles one at a time.
 *
 * What it buys (tools/bench/trust/watch-10k.mjs, 10,000 watches, 2 shared vCPUs): see
 * docs/performance.md, "watch fan-out".
 */
export function fanOutTurn(): Promise<void> | undefined {
  if (head === waiting.length) {
    const now = performance.now();
    if (!sliceOpen) {
      // The first watcher of a turn opens its slice; the slice closes in the turn's check phase.
      sliceOpen = true;
      sliceEnds = now + fanOutSliceMs;
      setImmediate(closeSlice);
    }
    if (now < sliceEnds) return undefined;
  }
  if (!scheduled) {
    scheduled = true;
    setImmediate(nextTurn);
  }
  return new Promise<void>((resolve) => waiting.push(resolve));
}

/** Reports what handling one event cost a watcher (ms, its synchronous part), to size the turns. */
export function fanOutCost(ms: number): void {
  costMs += (Math.max(ms, 0.001) - costMs) / 16;
}
