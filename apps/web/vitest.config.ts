import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defaultClientConditions } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that get a DOM and a module graph of their own (the `web-isolated` project,
 * vitest.isolated.config.ts). The router's logout tests saw the dashboard fetch again after a
 * logout in 2 of 3 fresh-clone CI runs while every file shared its worker's DOM (jsdom then), never when
 * this file ran alone or isolated (docs/decisions.md, "The suite's time").
 */
export const ISOLATED_FILES = ['src/app/router.test.tsx'];

/** The web's test project: the same environment for the shared and the isolated files. */
export function webTestConfig(project: {
  name: string;
  include: string[];
  exclude?: string[];
  isolate: boolean;
}) {
  return defineConfig({
    plugins: [react()],
    resolve: {
      alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
      conditions: ['@perch/source', ...defaultClientConditions],
    },
    test: {
      name: project.name,
      // happy-dom: the component tests took 2.3x less time than in jsdom (docs/decisions.md,
      // "The suite's time"); what a browser does is the journeys' part (Chromium).
      environment: 'happy-dom',
      setupFiles: ['./src/test/setup.ts'],
      include: project.include,
      exclude: [...configDefaults.exclude, ...(project.exclude ?? [])],
      // A hung test still fails, but a slow machine running two workers does not: a click-through
      // test that takes 1-2 s alone took over 5 s (Vitest's default) on a slow 2-core machine.
      testTimeout: 20_000,
      restoreMocks: true,
      unstubGlobals: true,
      isolate: project.isolate,
    },
  });
}

// One DOM and module graph per worker: the project took 77-89 s shared against 145 s with a
// DOM per file on the same machine (jsdom, 2026-11-30). Each file leaves nothing running behind it (the render
// helpers' query caches are cleared after each test, runtimes are stopped).
export default webTestConfig({
  name: 'web',
  include: ['src/**/*.test.{ts,tsx}'],
  exclude: ISOLATED_FILES,
  isolate: false,
});
