/**
 * Loading a workflow module written in TypeScript (`--workflows flows.ts`)
 * from the compiled package: tsx's ESM loader is registered once, and only
 * then — a node serving `.js` workflows never loads a compiler. Under tsx
 * itself (tests, `npm run taskflow`) the loader is already there and a second
 * registration is harmless.
 */
const TYPESCRIPT = /\.(ts|mts|cts)$/;

let registered: Promise<void> | undefined;

export function loadsAsTypeScript(path: string): boolean {
  return TYPESCRIPT.test(path);
}

export function registerTypeScriptLoader(): Promise<void> {
  registered ??= import("tsx/esm/api").then(({ register }) => {
    register();
  });
  return registered;
}
