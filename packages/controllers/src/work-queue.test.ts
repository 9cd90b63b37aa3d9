import { KeyWorkQueue } from './work-queue.js';

describe('KeyWorkQueue', () => {
  it('queues a key once while it waits, and works on keys one at a time in order', async () => {
    const log: string[] = [];
    let running = 0;
    const queue = new KeyWorkQueue(
      async (key) => {
        running++;
        expect(running).toBe(1);
        await new Promise((r) => setTimeout(r, 5));
        log.push(key);
        running--;
        return true;
      },
      { retryAfterMs: 10, onError: () => undefined },
    );
    for (const key of ['a', 'b', 'a', 'c', 'b']) queue.add(key);
    await queue.idle();
    expect(log).toEqual(['a', 'b', 'c']);
    await queue.stop();
  });

  it('works again on a key whose work answers false or throws, after retryAfterMs, and reports the error', async () => {
    const attempts = new Map<string, number>();
    const errors: string[] = [];
    const done = new Promise<void>((resolve) => {
      const queue = new KeyWorkQueue(
        async (key) => {
          const n = (attempts.get(key) ?? 0) + 1;
          attempts.set(key, n);
          if (key === 'throws' && n === 1) throw new Error('boom');
          if (key === 'held' && n < 3) return false;
          if (attempts.get('throws') === 2 && attempts.get('held') === 3) void queue.stop().then(resolve);
          return true;
        },
        { retryAfterMs: 10, onError: (key, err) => errors.push(`${key}: ${err.message}`) },
      );
      queue.add('throws');
      queue.add('held');
    });
    await done;
    expect(Object.fromEntries(attempts)).toEqual({ throws: 2, held: 3 });
    expect(errors).toEqual(['throws: boom']);
  });

  it('takes no key and drops waiting retries once stopped', async () => {
    let calls = 0;
    const queue = new KeyWorkQueue(
      async () => {
        calls++;
        return false;
      },
      { retryAfterMs: 20, onError: () => undefined },
    );
    queue.add('k');
    await queue.idle();
    await queue.stop();
    queue.add('k');
    await new Promise((r) => setTimeout(r, 60));
    expect(calls).toBe(1);
  });
});
