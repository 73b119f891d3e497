import { expect, type Page } from '@playwright/test';

/**
 * Starts recording, in the page itself, whether `text` is ever shown; the returned check waits
 * until it has been. A message that stays for 3 s (the spec's success messages) can come and go
 * between two of Playwright's looks when a loaded machine answers each look slowly; a
 * MutationObserver sees every change to the page as it happens. Call it before the action. The
 * check waits up to 30 s: on such a machine the answer that brings the message can take longer
 * than an expectation's usual 10 s.
 */
export async function recordShown(page: Page, text: string): Promise<() => Promise<void>> {
  await page.evaluate((wanted) => {
    const seen = ((window as { perchShownTexts?: Set<string> }).perchShownTexts ??= new Set());
    const look = () => {
      if (!document.body.textContent?.includes(wanted)) return false;
      seen.add(wanted);
      return true;
    };
    if (look()) return;
    const observer = new MutationObserver(() => {
      if (look()) observer.disconnect();
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  }, text);
  return () =>
    expect
      .poll(
        () =>
          page.evaluate(
            (wanted) =>
              (window as { perchShownTexts?: Set<string> }).perchShownTexts?.has(wanted) ?? false,
            text,
          ),
        { message: `'${text}' was never shown`, timeout: 30_000 },
      )
      .toBe(true);
}
