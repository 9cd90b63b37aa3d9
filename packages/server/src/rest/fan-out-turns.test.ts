import { fanOutCost, fanOutSliceMs, fanOutTurn } from './fan-out-turns.js';

/** Keeps the CPU busy for `ms`, as a watcher encoding and writing an event does. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** `count` watchers woken by one change, each handling its event after fanOutTurn; resolves with the order they finished in. */
async function fanOut(count: number, workMs: number): Promise<number[]> {
  const finished: number[] = [];
  let wake!: () => void;
  const change = new Promise<void>((r) => (wake = r));
  const watchers = Array.from({ length: count }, async (_, i) => {
    await change;
    const turn = fanOutTurn();
    if (turn) await turn;
    const started = performance.now();
    busy(workMs);
    fanOutCost(performance.now() - started);
    finished.push(i);
  });
  setImmediate(wake);
  await Promise.all(watchers);
  return finished;
}

describe('fanOutTurn', () => {
  it('lets a watcher go on at once while its turn has time left', async () => {
    await new Promise((r) => setImmediate(r));
    expect(fanOutTurn()).toBeUndefined();
    expect(fanOutTurn()).toBeUndefined();
  });

  it('gives other callbacks a turn while many watchers handle one change, and keeps the watchers in order', async () => {
    const count = 200;
    let doneWhenTimerRan = -1;
    let finished: number[] = [];
    const all = fanOut(count, 0.5).then((f) => (finished = f));
    // A request arriving meanwhile (here a timer) runs before the last watcher finished.
    const timer = new Promise<void>((r) =>
      setTimeout(() => {
        doneWhenTimerRan = finished.length === count ? count : -2;
        r();
      }, 1),
    );
    await Promise.all([all, timer]);
    expect(doneWhenTimerRan).toBe(-2);
    expect(finished).toEqual(Array.from({ length: count }, (_, i) => i));
  });

  it('spreads the work over turns of about fanOutSliceMs each', async () => {
    const turns: number[] = [];
    let stop = false;
    // Counts turns of the event loop while 100 ms of watcher work runs.
    const tick = () => {
      turns.push(performance.now());
      if (!stop) setImmediate(tick);
    };
    setImmediate(tick);
    await fanOut(200, 0.5);
    stop = true;
    // Without the turns this would be 1 or 2; with them about 100 ms / fanOutSliceMs (20).
    expect(turns.length).toBeGreaterThanOrEqual(Math.floor(100 / (2 * fanOutSliceMs)));
  });
});
