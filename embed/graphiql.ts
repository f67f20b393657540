/**
 * GraphiQL as stagegraph serves it at /graphiql (bundled with its CSS by scripts/bundle-sdk.ts, nothing
 * loaded from another host). The page holds no credential: a developer types their site ID and developer
 * key into the headers editor; queries and introspection go to this origin's /graphql with those headers,
 * subscriptions over its graphql-ws socket with the same values as connectionParams. When the headers
 * name another key, the schema is fetched again with it, so the docs explorer follows the credential.
 */
import { createGraphiQLFetcher, type Fetcher, type Storage } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import { createElement, useCallback, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';

const DEFAULT_HEADERS = JSON.stringify({ 'x-service-client-id': '', 'x-service-developer-key': '' }, null, 2);

const DEFAULT_QUERY = `# Enter your site ID and developer key in Headers (below):
# the docs (top left) then list every type and who may call it.
query SiteOverlays {
  overlays {
    id
    name
  }
}
`;

/** Headers left empty in the editor are not sent: an empty key is no key. */
function withoutEmptyHeaders(headers: HeadersInit | undefined): Headers {
  const sent = new Headers(headers);
  for (const [name, value] of [...sent.entries()]) if (value === '') sent.delete(name);
  return sent;
}

/** A stored value with every `headers` field left out (GraphiQL's history keeps each query's headers). */
function withoutHeaders(value: string): string {
  try {
    return JSON.stringify(JSON.parse(value), (key, field: unknown) => (key === 'headers' ? undefined : field));
  } catch {
    return value;
  }
}

/**
 * GraphiQL's own storage (tabs, history, settings in localStorage, under `graphiql:`), except that no
 * headers are written: the developer key typed into the headers editor stays in this tab, never on disk.
 */
const storage: Storage = {
  getItem: (key) => localStorage.getItem(key),
  setItem: (key, value) => localStorage.setItem(key, withoutHeaders(value)),
  removeItem: (key) => localStorage.removeItem(key),
  get length() {
    return Object.keys(localStorage).filter((key) => key.startsWith('graphiql:')).length;
  },
  clear() {
    for (const key of Object.keys(localStorage)) if (key.startsWith('graphiql:')) localStorage.removeItem(key);
  },
};

function createFetcher(): Fetcher {
  const origin = window.location.origin;
  return createGraphiQLFetcher({
    url: `${origin}/graphql`,
    subscriptionUrl: `${origin.replace(/^http/, 'ws')}/graphql`,
    fetch: (input, init) => fetch(input, { ...init, headers: withoutEmptyHeaders(init?.headers) }),
  });
}

/** The credential the headers editor names (site ID and key), or '' while it is not valid JSON. */
function credentialOf(headers: string): string {
  try {
    const parsed = JSON.parse(headers) as Record<string, unknown>;
    return JSON.stringify([parsed['x-service-client-id'], parsed['x-service-developer-key'], parsed.authorization]);
  } catch {
    return '';
  }
}

function StagegraphGraphiQL() {
  // A new fetcher makes GraphiQL introspect again, now with the headers the editor holds.
  const [fetcher, setFetcher] = useState(createFetcher);
  const credential = useRef(credentialOf(DEFAULT_HEADERS));
  const typing = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // Once the developer stops typing for a moment: a key typed character by character is introspected once.
  const onEditHeaders = useCallback((headers: string) => {
    clearTimeout(typing.current);
    typing.current = setTimeout(() => {
      const next = credentialOf(headers);
      if (next === '' || next === credential.current) return;
      credential.current = next;
      setFetcher(createFetcher);
    }, 300);
  }, []);
  return createElement(GraphiQL, {
    fetcher,
    defaultHeaders: DEFAULT_HEADERS,
    defaultQuery: DEFAULT_QUERY,
    defaultEditorToolsVisibility: 'headers',
    isHeadersEditorEnabled: true,
    // The developer key stays in this tab: never written to localStorage.
    storage,
    shouldPersistHeaders: false,
    showPersistHeadersSettings: false,
    onEditHeaders,
  });
}

createRoot(document.getElementById('graphiql') as HTMLElement).render(createElement(StagegraphGraphiQL));
