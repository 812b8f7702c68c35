#!/usr/bin/env node
// The published binary: runs the compiled CLI (`npm run build` writes dist/;
// `npm ci` and `npm install` build it through `prepare`). Paths resolve from
// this file's real location, so it works through `npm link` and `npx` symlinks.
await import("../dist/cli/main.js");
