#!/usr/bin/env node
// Workspace bin: runs the esbuild bundle (npm run build writes dist/main.mjs).
import '../dist/main.mjs';
