#!/usr/bin/env node
// The published bin (and the workspace's): runs the esbuild bundle, dist/main.mjs, which the
// build writes and the npm tarball ships.
import '../dist/main.mjs';
