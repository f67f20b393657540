/**
 * What a page's script does to its WebSocket before the embed loads, handed to puppeteer's
 * `evaluateOnNewDocument`: a WebSocket whose constructor throws, as Chromium's does when the page's
 * Content-Security-Policy leaves out ws: (a SecurityError), so a socket cannot even be made.
 */
export function refuseSockets(): void {
  const page = globalThis as unknown as { WebSocket: unknown; DOMException: new (message: string, name: string) => Error };
  page.WebSocket = class RefusedWebSocket {
    static readonly CONNECTING = 0;
    static readonly OPEN = 1;
    static readonly CLOSING = 2;
    static readonly CLOSED = 3;
    constructor(url: string) {
      throw new page.DOMException(`Refused to connect to '${url}' because it violates the document's Content Security Policy.`, 'SecurityError');
    }
  };
}
