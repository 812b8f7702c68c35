// The Console's pages, built at `npm ci` (scripts/build.mjs) into dist/console-ui, which the
// server serves under /console. No inline script or style is emitted, so the server's
// Content-Security-Policy (script-src 'self'; style-src 'self') holds.
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "/console/",
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL("../dist/console-ui", import.meta.url)),
    emptyOutDir: true,
    // A module preload polyfill is an inline script; every browser the Console supports has it.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1500,
  },
});
