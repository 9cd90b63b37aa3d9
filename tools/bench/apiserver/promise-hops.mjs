#!/usr/bin/env node
// What a filter's way of wrapping the next handler costs per request, in one process (ns): an
// async function with try/await, a rejection handler on the handler's promise (`.then`), an
// async function that returns the handler's promise on its fast path, a plain function that
// returns it, and, for filters that await a check first, an async function awaiting the check
// and the handler against reactions on the check's promise. The figures behind the request path's wrappers (panic recovery, routes, max
// in-flight, instrumented storage; docs/performance.md, "apiserver").
//
//   node tools/bench/apiserver/promise-hops.mjs [--requests 300000] [--rounds 5]
import { benchFlags } from '../lib/apiserver-harness.mjs';

const { flag } = benchFlags();
const requests = Number(flag('requests', '300000'));
const rounds = Number(flag('rounds', '5'));

const leaf = () => Promise.resolve();
const check = () => Promise.resolve(true);
const wrappers = {
  'async function, try/await': (next) => async (ctx) => {
    try {
      await next(ctx);
    } catch (err) {
      ctx.err = err;
    }
  },
  'rejection handler (.then)': (next) => (ctx) => {
    let pending;
    try {
      pending = next(ctx);
    } catch (err) {
      ctx.err = err;
      return Promise.resolve();
    }
    return pending.then(undefined, (err) => {
      ctx.err = err;
    });
  },
  'async function returning the promise': (next) => async (ctx) => {
    if (ctx.exempt) return next(ctx);
    await next(ctx);
  },
  'plain function returning the promise': (next) => (ctx) => next(ctx),
  // The authentication and authorization filters: a check (the authenticator, the authorizer) first.
  'async function awaiting a check, then the next': (next) => async (ctx) => {
    let ok;
    try {
      ok = await check(ctx);
    } catch {
      return;
    }
    if (!ok) return;
    await next(ctx);
  },
  'reactions on the check, returning the next': (next) => (ctx) =>
    check(ctx).then(
      (ok) => (ok ? next(ctx) : undefined),
      () => undefined,
    ),
};

async function nsPerRequest(handler) {
  const ctx = { exempt: true };
  for (let i = 0; i < 50_000; i++) await handler(ctx);
  const t = process.hrtime.bigint();
  for (let i = 0; i < requests; i++) await handler(ctx);
  return Number(process.hrtime.bigint() - t) / requests;
}

const results = new Map(Object.keys(wrappers).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) for (const [name, wrap] of Object.entries(wrappers)) results.get(name).push(await nsPerRequest(wrap(leaf)));
const base = [...results.get('plain function returning the promise')].sort((a, b) => a - b)[Math.floor(rounds / 2)];
console.log('| wrapper | ns per request, median [range] | over the plain function |');
console.log('|---|---|---:|');
for (const [name, xs] of results) {
  xs.sort((a, b) => a - b);
  const median = xs[Math.floor(rounds / 2)];
  console.log(`| ${name} | ${median.toFixed(0)} [${xs[0].toFixed(0)}–${xs[rounds - 1].toFixed(0)}] | ${(median - base).toFixed(0)} |`);
}
