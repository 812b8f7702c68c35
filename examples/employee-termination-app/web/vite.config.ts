// The app's pages, built into dist/employee-termination-app by the app's own command when
// missing or stale (main.ts; `npm run build` leaves them out) and served by its backend. No inline script or style is
// emitted, so the backend's Content-Security-Policy (script-src 'self'; style-src 'self') holds.
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL("../../../dist/employee-termination-app", import.meta.url)),
    emptyOutDir: true,
    // The module preload polyfill is an inline script; the browsers this app supports have it.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
