import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, buildTestApp, TestClient, type TestApp } from './helpers.js';

describe.each(DIALECTS)('smoke [%s]', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(dialect);
  });
  afterAll(() => t.close());

  it('registers and checks', async () => {
    const client = new TestClient(t.app);
    await client.register(t.db, 'alice');
    const check = await client.get('/api/v1/auth/check');
    expect(check.json().data).toMatchObject({ authenticated: true, username: 'alice' });
  });
});
