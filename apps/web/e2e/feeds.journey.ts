import { FEED_MESSAGES } from '@perch/shared';
import { expect, request, test } from '@playwright/test';
import { registerSuperAdmin } from './accounts';
import { addHandleInPanel, expectReady, handleRow } from './handle-rows';
import { servePerch } from './journey-servers';
import { recordShown } from './shown-texts';

const server = servePerch({ DEMO_PAGE_DELAY_MS: '0' });

test('copy a handle’s feed address, read it as a feed reader would, regenerate it', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: server.origin,
  });
  await registerSuperAdmin(page, server, 'lamarr');
  await addHandleInPanel(page, 'typical_news');
  await expectReady(handleRow(page, 'typical_news'), 60_000);

  await page.getByRole('link', { name: 'Settings' }).first().click();
  const card = page.getByTestId('feeds-card');
  const rss = card.getByRole('textbox', { name: 'RSS address for @typical_news' });
  await expect(rss).toHaveValue(/\/api\/v1\/feeds\/[\w-]+\/typical_news\.rss$/);
  const oldRss = await rss.inputValue();
  const oldJson = await card
    .getByRole('textbox', { name: 'JSON Feed address for @typical_news' })
    .inputValue();
  // The button says Copied for 2 s.
  const copied = await recordShown(page, 'Copied');
  await card.getByRole('button', { name: 'Copy the RSS address for @typical_news' }).click();
  await copied();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(oldRss);

  // A feed reader: no cookies, only the address.
  const reader = await request.newContext();
  try {
    const feed = await reader.get(oldRss);
    expect(feed.status()).toBe(200);
    expect(feed.headers()['content-type']).toBe('application/rss+xml; charset=utf-8');
    const xml = await feed.text();
    expect(xml).toContain('<rss version="2.0"');
    expect(xml).toMatch(/<title>[^<]*\(?@typical_news\)? on X<\/title>/);
    expect((xml.match(/<item>/g) ?? []).length).toBeGreaterThan(0);
    const etag = feed.headers().etag ?? '';
    expect((await reader.get(oldRss, { headers: { 'if-none-match': etag } })).status()).toBe(304);
    const json = await reader.get(oldJson);
    expect(json.headers()['content-type']).toBe('application/feed+json; charset=utf-8');
    expect(((await json.json()) as { version: string }).version).toBe(
      'https://jsonfeed.org/version/1.1',
    );

    // Regenerate, confirmed: new addresses at once, the old ones answer 404.
    await card.getByRole('button', { name: 'Regenerate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Make new feed addresses?' });
    const regenerated = await recordShown(page, FEED_MESSAGES.regenerated);
    await dialog.getByRole('button', { name: 'Make new addresses' }).click();
    await regenerated();
    await expect(rss).not.toHaveValue(oldRss);
    const newRss = await rss.inputValue();
    expect((await reader.get(oldRss)).status()).toBe(404);
    expect((await reader.get(oldJson)).status()).toBe(404);
    expect((await reader.get(newRss)).status()).toBe(200);
    // The new address is kept: a reload shows the same one.
    await page.reload();
    await expect(card.getByRole('textbox', { name: 'RSS address for @typical_news' })).toHaveValue(
      newRss,
    );
  } finally {
    await reader.dispose();
  }
});
