/**
 * The result's buttons that reach outside the page: copy text to the clipboard, save bytes as a
 * file.  Plain browser APIs, so that they work in any front end that renders the output.
 */

import { control, el } from './dom';

/** Write `text` to the clipboard; false when the browser refused. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // not allowed here (an insecure origin, no permission): try the old way below
  }
  const area = el('textarea');
  area.value = text;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  try {
    return (
      typeof document.execCommand === 'function' && document.execCommand('copy')
    );
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

/** A file name made of safe characters only; `fallback` when nothing is left. */
export function safeFileName(name: string, fallback: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+|_+$/g, '')
    .slice(0, 80);
  return safe || fallback;
}

/** Let the browser save `bytes` as `fileName` (a download, no page navigation). */
export function downloadBytes(bytes: Uint8Array, fileName: string): void {
  const blob = new Blob([bytes as BlobPart], {
    type: 'application/octet-stream'
  });
  const url = URL.createObjectURL(blob);
  const link = el('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The download has its own reference by now; the URL only has to outlive the click's task.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A small button that runs `action` and says how it went, e.g. "Copied". */
export function actionButton(
  label: string,
  className: string,
  action: () => Promise<boolean> | boolean,
  done: string
): HTMLButtonElement {
  const button = control('button', `jp-Z3Run-action ${className}`, label);
  button.addEventListener('click', async () => {
    const ok = await action();
    button.textContent = ok ? done : `${label} (failed)`;
    button.dataset.state = ok ? 'done' : 'failed';
  });
  return button;
}
