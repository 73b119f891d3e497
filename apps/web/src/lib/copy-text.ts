/**
 * Copies `text` to the clipboard. Browsers offer the Clipboard API only in secure contexts, and
 * a self-hosted server is often reached over plain HTTP on a LAN, so a hidden text area with
 * the older copy command is the fallback.
 */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // Permission refused: the copy command below may still work.
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  try {
    if (!document.execCommand('copy')) throw new Error('The copy command was refused.');
  } finally {
    area.remove();
  }
}
