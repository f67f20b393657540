/**
 * The watch page's device ID: a random ID for this browser, kept across visits, that the content check
 * counts against the site's device limit (header `x-service-device-id`).
 */

const DEVICE_KEY = 'stagegraph:device-id';

export /** A random ID for this browser, kept across visits (the site's device limit counts it). */
function deviceId(): string {
  const made = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
  try {
    const kept = localStorage.getItem(DEVICE_KEY);
    if (kept) return kept;
    const id = made();
    localStorage.setItem(DEVICE_KEY, id);
    return id;
  } catch {
    // Storage refused (a private window, a sandboxed frame): one ID for this page's life.
    return made();
  }
}
