// @ts-check
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Paths are taken from the repository root, so `npm run lint` in a workspace applies them too.
const ROOT = path.dirname(fileURLToPath(import.meta.url));
const WEB_FEATURES = 'apps/web/src/features';
const features = fs.existsSync(path.join(ROOT, WEB_FEATURES))
  ? fs
      .readdirSync(path.join(ROOT, WEB_FEATURES), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
  : [];

/**
 * The import rules between packages: shared imports nothing of ours; web and server import
 * shared, never each other; a web feature does not reach into another feature.
 */
const boundaryZones = [
  {
    target: './packages/shared',
    from: ['./apps'],
    message: 'packages/shared must not import from the apps.',
  },
  {
    target: './apps/web',
    from: './apps/server',
    message: 'The web app must not import server code.',
  },
  { target: './apps/server', from: './apps/web', message: 'The server must not import web code.' },
  ...features.map((feature) => ({
    target: `./${WEB_FEATURES}/${feature}`,
    from: `./${WEB_FEATURES}`,
    except: [`./${feature}`],
    message: 'A feature must not import another feature: compose features in src/app.',
  })),
];

/**
 * The server's floors, top to bottom (docs/where-to-change.md, "The server's rooms"): a room
 * imports only rooms on lower floors (and its own). Tests may reach up to build what they test.
 */
const SERVER = './apps/server/src';
const serverFloors = [
  ['main.ts', 'app.ts', 'cli'],
  ['collector'],
  ['modules'],
  ['alerts'],
  ['notify', 'sources'],
  ['cluster', 'plugins'],
  ['db'],
  ['config.ts', 'jobs'],
  ['domain', 'lib', 'analytics'],
];
const layerZones = serverFloors.slice(1).flatMap((floor, index) => {
  const above = serverFloors.slice(0, index + 1).flat();
  return floor.map((room) => ({
    target: `${SERVER}/${room}`,
    // Rooms of one floor stay apart, except that the ground floor's rooms may use `domain`.
    from: [...above, ...floor.filter((other) => other !== room && other !== 'domain')].map(
      (r) => `${SERVER}/${r}`,
    ),
    message: `apps/server/src/${room} imports only rooms on lower floors (serverFloors in eslint.config.js).`,
  }));
});

const sharedOnly = {
  group: ['@perch/server', '@perch/web', '@perch/*/src/*'],
  message: 'Import @perch/shared only.',
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/coverage/**',
      'test-results/**',
      'playwright-report/**',
      'data/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
    plugins: { 'import-x': importX },
    settings: {
      // Imported files are parsed as TypeScript too, so rules that follow imports (no-cycle) see them.
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx', '.mts', '.cts'] },
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: [
            path.join(ROOT, 'packages/shared/tsconfig.json'),
            path.join(ROOT, 'apps/server/tsconfig.json'),
            path.join(ROOT, 'apps/web/tsconfig.json'),
          ],
          noWarnOnMultipleProjects: true,
          conditionNames: ['@perch/source', 'types', 'import', 'default'],
        }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: boundaryZones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'no-restricted-imports': ['error', { patterns: [sharedOnly] }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      eqeqeq: ['error', 'smart'],
      'no-console': 'off',
    },
  },
  {
    // The server's rooms depend downwards only (serverFloors); tests may reach up.
    files: ['apps/server/src/**/*.ts'],
    ignores: ['apps/server/src/**/*.test.ts', 'apps/server/src/**/*.contract.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { basePath: ROOT, zones: [...boundaryZones, ...layerZones] },
      ],
    },
  },
  {
    // Queries are built in repositories, db/ and the migrations; elsewhere kysely is a type.
    files: ['apps/server/src/**/*.ts'],
    ignores: [
      'apps/server/src/**/*.repository.ts',
      'apps/server/src/db/**',
      'apps/server/src/**/*.test.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'kysely',
              message: 'Build queries in a repository (or db/): import kysely here as a type only.',
              allowTypeImports: true,
            },
          ],
          patterns: [sharedOnly],
        },
      ],
    },
  },
  {
    // Routes speak HTTP and call services; SQL lives in repositories only.
    files: ['apps/server/src/**/*.routes.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'kysely', message: 'Routes run no SQL: call a service.' }],
          patterns: [
            sharedOnly,
            {
              group: ['**/*.repository.js'],
              message: 'Routes call services, never repositories.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
);
