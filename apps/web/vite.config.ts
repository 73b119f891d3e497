import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/**
 * Writes a .gz and a .br copy next to every text asset of the build, which the server sends to
 * browsers that accept them (@fastify/static `preCompressed`): Perch is often run without a
 * compressing proxy in front, and the sign-in page's scripts shrink to a third.
 */
function precompress(): Plugin {
  return {
    name: 'perch-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const dir = options.dir ?? 'dist';
      const files = [...Object.keys(bundle), 'index.html'].filter((file) =>
        /\.(js|css|html|svg|json)$/.test(file),
      );
      await Promise.all(
        [...new Set(files)].map(async (file) => {
          const full = path.join(dir, file);
          if (!fs.existsSync(full)) return;
          const content = await fs.promises.readFile(full);
          if (content.length < 1024) return;
          const [gz, br] = await Promise.all([
            gzip(content, { level: 9 }),
            brotli(content, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
          ]);
          await Promise.all([
            fs.promises.writeFile(`${full}.gz`, gz),
            fs.promises.writeFile(`${full}.br`, br),
          ]);
        }),
      );
    },
  };
}

/**
 * The SPA is served by the API server under /dashboard/. `@perch/source` makes @perch/shared
 * resolve to its TypeScript source, so the web never waits for a shared build.
 */
export default defineConfig({
  base: '/dashboard/',
  plugins: [react(), precompress()],
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
    rolldownOptions: {
      output: {
        codeSplitting: {
          // The libraries the pages load (react and TanStack Query every page, zod and Mantine
          // every signed-in one) and that change only with an upgrade get chunks of their own,
          // which browsers keep across Perch updates; the rest is split along the routes' lazy
          // imports (apps/web/src/app/router.tsx).
          groups: [
            {
              name: 'react',
              test: /[\\/]node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/,
            },
            { name: 'query', test: /[\\/]node_modules[\\/]@tanstack[\\/]/ },
            { name: 'zod', test: /[\\/]node_modules[\\/]zod[\\/]/ },
            // Mantine is not on the sign-in page (app/router.tsx). The pieces of it that three
            // or more lazy chunks share stay together: split along each page's imports, they
            // made many small chunks, and the dashboard's first load took 60 files and 301 kB
            // gzipped instead of 44 and 291 kB.
            {
              name: 'mantine',
              test: /[\\/]node_modules[\\/]@mantine[\\/](core|hooks)[\\/]/,
              minShareCount: 3,
            },
            // What the entry imports statically (providers, root gate, error and sign-in pages)
            // stays in the entry chunk: split along the lazy pages' shared imports, it made 22
            // small chunks, 9 kB more gzipped than one (and the dashboard loaded 11 kB more).
            { name: 'index', tags: ['$initial'] },
          ],
        },
      },
    },
  },
  server: {
    port: 5173,
    proxy: { '/api': { target: 'http://127.0.0.1:3000', changeOrigin: false } },
  },
});
