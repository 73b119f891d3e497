import { expect, type Page } from '@playwright/test';

/**
 * Starts recording, in the page itself, whether `text` (a string, or a pattern such as a
 * badge's `Collecting \d+%`) is ever shown; the returned check waits until it has been. A
 * message that stays for 3 s (the spec's success messages), or a state that lasts a few seconds,
 * can come and go between two of Playwright's looks when a loaded machine answers each look
 * slowly; a MutationObserver sees every change to the page as it happens. Call it before the
 * action. The check waits up to `timeout` (30 s unless given): on such a machine the answer that
 * brings the text can take longer than an expectation's usual 10 s.
 *
 * With `selector`, only the text of a visible element that matches it counts, all of it: a
 * pattern must match the element's whole text (the collecting overlay's `^\d+%$`).
 */
export async function recordShown(
  page: Page,
  text: string | RegExp,
  { selector }: { selector?: string } = {},
): Promise<(timeout?: number) => Promise<void>> {
  const wanted = {
    key: `${selector ?? ''}::${String(text)}`,
    text: typeof text === 'string' ? text : undefined,
    source: typeof text === 'string' ? undefined : text.source,
    selector,
  };
  await page.evaluate(({ key, text, source, selector }) => {
    const seen = ((window as { perchShownTexts?: Set<string> }).perchShownTexts ??= new Set());
    const pattern = source === undefined ? undefined : new RegExp(source);
    const matches = (shown: string) => (pattern ? pattern.test(shown) : shown.includes(text ?? ''));
    const look = () => {
      const found =
        selector === undefined
          ? matches(document.body.textContent ?? '')
          : [...document.querySelectorAll(selector)].some(
              (element) => element.checkVisibility() && matches(element.textContent ?? ''),
            );
      if (found) seen.add(key);
      return found;
    };
    if (look()) return;
    const observer = new MutationObserver(() => {
      if (look()) observer.disconnect();
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  }, wanted);
  return (timeout = 30_000) =>
    expect
      .poll(
        () =>
          page.evaluate(
            (key) =>
              (window as { perchShownTexts?: Set<string> }).perchShownTexts?.has(key) ?? false,
            wanted.key,
          ),
        {
          message: `'${String(text)}' was never shown${selector ? ` in ${selector}` : ''}`,
          timeout,
        },
      )
      .toBe(true);
}
