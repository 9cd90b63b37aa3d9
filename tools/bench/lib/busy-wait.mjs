// A control for the benchmarks that compare a server with a feature on against the same server
// with it off: preloaded into a server (`node --import <this file>?us=2.5 …`), it busy-waits the
// given microseconds of CPU before every request a TLS server (node:https, or node:http2's secure
// server with its HTTP/1.1 fallback, as the apiserver's) handles, and does nothing else.
// Measured like the feature, it shows what a known amount of CPU a request weighs in the
// benchmark's figures, in the same run: on the loopback rig not simply the amount itself, since a
// server's CPU a request also depends on how its work falls between the answers (a slower server
// leaves the load generator idle more often, and an answer may then pay for waking it).
import tls from 'node:tls';

const us = Number(new URL(import.meta.url).searchParams.get('us'));
if (!(us > 0)) throw new Error(`busy-wait.mjs: expected ?us=<microseconds> in its URL, got ${new URL(import.meta.url).search || 'nothing'}`);
const emit = tls.Server.prototype.emit;
tls.Server.prototype.emit = function (name, ...args) {
  if (name === 'request') {
    const until = performance.now() + us / 1000;
    while (performance.now() < until);
  }
  return emit.call(this, name, ...args);
};
