import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defaultClientConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
    conditions: ['@perch/source', ...defaultClientConditions],
  },
  test: {
    name: 'web',
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    // A hung test still fails, but a slow machine running two workers does not: a click-through
    // test that takes 1-2 s alone took over 5 s (Vitest's default) on a slow 2-core machine.
    testTimeout: 20_000,
    restoreMocks: true,
    unstubGlobals: true,
    // One jsdom and one module graph per worker, not per file: setting up jsdom and importing
    // the app took most of each file's time. Files clean up after themselves (src/test/setup.ts:
    // the rendered tree, storage, cookies; restoreMocks and unstubGlobals: mocks and globals).
    isolate: false,
  },
});
