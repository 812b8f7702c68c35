#!/usr/bin/env node
// The published binary: registers tsx's ESM loader, then runs the TypeScript CLI
// as is (the package ships its sources). Paths resolve from this file's real
// location, so it works through `npm link` and `npx` symlinks alike.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
