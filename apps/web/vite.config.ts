import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

/**
 * The SPA is served by the API server under /dashboard/. `@perch/source` makes @perch/shared
 * resolve to its TypeScript source, so the web never waits for a shared build.
 */
export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
    conditions: ['@perch/source', ...defaultClientConditions],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // dist/.vite/manifest.json: what each route loads (tests/bundle-budget.test.ts reads it).
    manifest: true,
    // The analytics chunk carries the charts library (recharts, ~600 kB); it loads only on
    // the dashboard, after the page shell, so it may exceed Vite's 500 kB default warning.
    chunkSizeWarningLimit: 700,
  },
  server: {
    port: 5173,
    proxy: { '/api': { target: 'http://127.0.0.1:3000', changeOrigin: false } },
  },
});
