import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const eslint = new ESLint({ cwd: ROOT });

/** Lints `code` as if it were the file at `relativePath` and returns the rule ids it broke. */
async function violations(relativePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, relativePath) });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

describe('import boundaries (eslint.config.js)', () => {
  it.each([
    [
      'stops the web app importing server code',
      'apps/web/src/lib/boundary-probe.ts',
      "import { loadConfig } from '../../../server/src/config.js';\nexport const probe = loadConfig;\n",
    ],
    [
      'stops the server importing web code',
      'apps/server/src/boundary-probe.ts',
      "import { apiRequest } from '../../web/src/lib/api-client.js';\nexport const probe = apiRequest;\n",
    ],
    [
      'stops the shared package importing either app',
      'packages/shared/src/boundary-probe.ts',
      "import { loadConfig } from '../../../apps/server/src/config.js';\nexport const probe = loadConfig;\n",
    ],
    [
      'stops one web feature reaching into another',
      'apps/web/src/features/auth/components/boundary-probe.ts',
      "import { FaqAccordion } from '../../faq/components/faq-accordion.js';\nexport const probe = FaqAccordion;\n",
    ],
  ])('%s', async (_name, relativePath, code) => {
    expect(await violations(relativePath, code)).toContain('import-x/no-restricted-paths');
  });

  it('keeps SQL out of routes: a route imports neither kysely nor a repository', async () => {
    const kysely = await violations(
      'apps/server/src/modules/handles/boundary-probe.routes.ts',
      "import { sql } from 'kysely';\nexport const probe = sql;\n",
    );
    expect(kysely).toContain('no-restricted-imports');
    const repository = await violations(
      'apps/server/src/modules/handles/boundary-probe.routes.ts',
      "import { findHandleById } from './handles.repository.js';\nexport const probe = findHandleById;\n",
    );
    expect(repository).toContain('no-restricted-imports');
    const service = await violations(
      'apps/server/src/modules/handles/boundary-probe.routes.ts',
      "import { addHandle } from './handles.service.js';\nexport const probe = addHandle;\n",
    );
    expect(service).not.toContain('no-restricted-imports');
  });

  it('keeps the server one-way: a room imports only rooms on lower floors', async () => {
    const upward = await violations(
      'apps/server/src/modules/handles/boundary-probe.ts',
      "import { Collector } from '../../collector/collector.js';\nexport const probe = Collector;\n",
    );
    expect(upward).toContain('import-x/no-restricted-paths');
    const notifyIntoModules = await violations(
      'apps/server/src/notify/boundary-probe.ts',
      "import { findUserSettings } from '../modules/settings/settings.repository.js';\nexport const probe = findUserSettings;\n",
    );
    expect(notifyIntoModules).toContain('import-x/no-restricted-paths');
    const groundFloor = await violations(
      'apps/server/src/domain/boundary-probe.ts',
      "import { sleep } from '../lib/sleep.js';\nexport const probe = sleep;\n",
    );
    expect(groundFloor).toContain('import-x/no-restricted-paths');
    const downward = await violations(
      'apps/server/src/collector/boundary-probe.ts',
      "import { findHandleById } from '../modules/handles/handles.repository.js';\nexport const probe = findHandleById;\n",
    );
    expect(downward).toEqual([]);
  });

  it('keeps kysely to repositories, db/ and the migrations (elsewhere as a type only)', async () => {
    const value = "import { sql } from 'kysely';\nexport const probe = sql;\n";
    expect(await violations('apps/server/src/collector/boundary-probe.ts', value)).toContain(
      'no-restricted-imports',
    );
    expect(await violations('apps/server/src/lib/boundary-probe.ts', value)).toContain(
      'no-restricted-imports',
    );
    const asType = "import type { Kysely } from 'kysely';\nexport type Probe = Kysely<object>;\n";
    expect(await violations('apps/server/src/collector/boundary-probe.ts', asType)).toEqual([]);
    expect(
      await violations('apps/server/src/modules/handles/boundary-probe.repository.ts', value),
    ).toEqual([]);
    expect(await violations('apps/server/src/db/boundary-probe.ts', value)).toEqual([]);
  });

  it('refuses an import cycle', async () => {
    // The probe's folder comes and goes inside the server's sources: their folder keeps its
    // times, or `npm start` would see newer sources and build again after `npm test`.
    const sources = path.join(ROOT, 'apps/server/src');
    const { atimeMs, mtimeMs } = fs.statSync(sources);
    const dir = fs.mkdtempSync(path.join(sources, 'cycle-probe-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'a.ts'),
        "import { b } from './b.js';\nexport const a = () => b();\n",
      );
      fs.writeFileSync(
        path.join(dir, 'b.ts'),
        "import { a } from './a.js';\nexport const b = (): unknown => a;\n",
      );
      const [result] = await eslint.lintFiles([path.join(dir, 'a.ts')]);
      expect(result?.messages.map((message) => message.ruleId)).toContain('import-x/no-cycle');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.utimesSync(sources, atimeMs / 1000, mtimeMs / 1000);
    }
  });

  it('allows both apps to import the shared package', async () => {
    const code = "import { MESSAGES } from '@perch/shared';\nexport const probe = MESSAGES;\n";
    expect(await violations('apps/web/src/lib/boundary-probe.ts', code)).toEqual([]);
    expect(await violations('apps/server/src/boundary-probe.ts', code)).toEqual([]);
  });
});
