import { defineConfig } from "vitest/config";
import { svelte } from "@sveltejs/vite-plugin-svelte";

// The desktop shell embeds `dist/`; the dev server is only for working on the UI in a browser.
export default defineConfig({
  plugins: [svelte()],
  clearScreen: false,
  build: {
    target: "safari16",
    outDir: "dist",
    emptyOutDir: true,
  },
  server: { port: 5173, strictPort: true },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
