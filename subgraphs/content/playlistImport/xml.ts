/**
 * XML documents (Atom and RSS feeds), parsed by fast-xml-parser in a worker thread (xmlWorker.ts): a validating
 * pass first (a malformed document is refused rather than half read), attributes kept as `@_name`, values kept
 * as text (an id such as `0123` stays text), and no entity a document declares for itself: a DOCTYPE with
 * `<!ENTITY` is refused before parsing (no expansion bombs, no external entities), so only XML's five entities,
 * character references and the parser's few common HTML names are decoded.
 */
import { notAPlaylist } from './types';
import { parseXmlOffThread, type XmlParseOptions } from './xmlWorker';

export type XmlNode = Record<string, unknown>;

const PARSE: XmlParseOptions = {
  options: {
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    // XML's own entities, and (the parser's htmlEntities) character references such as `&#233;`: feeds use both.
    processEntities: true,
    htmlEntities: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
  },
  /** The elements that may repeat where the import reads them: always arrays, however many there are. */
  repeated: ['entry', 'item', 'link', 'enclosure', 'media:content', 'media:thumbnail', 'media:group'],
};

/** The document's root element's name and content; 422 for a document that is not well-formed XML. */
export async function parseXml(text: string): Promise<{ root: string; node: XmlNode }> {
  if (text.includes('<!ENTITY')) throw notAPlaylist('an XML document that declares its own entities (not read, for safety)');
  const parsed = await parseXmlOffThread(text, PARSE);
  if (!parsed.wellFormed) throw notAPlaylist('a document that starts like XML but is not well-formed');
  const document = parsed.document;
  const root = Object.keys(document).find((key) => !key.startsWith('?') && !key.startsWith('#') && !key.startsWith('@_'));
  if (!root) throw notAPlaylist('an XML document without a root element');
  const node = document[root];
  return { root, node: isNode(node) ? node : {} };
}

export const isNode = (value: unknown): value is XmlNode => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

/** The element's text, whether it has attributes (`{#text, @_…}`) or not. */
export function textOf(value: unknown): string {
  if (Array.isArray(value)) return textOf(value[0]);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isNode(value)) return textOf(value['#text']);
  return '';
}

/** The child elements named `name` (none, one or many) that are elements. */
export function children(node: XmlNode, name: string): XmlNode[] {
  const value = node[name];
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.map((item) => (isNode(item) ? item : { '#text': textOf(item) }));
}

/** An attribute of the first child element named `name`. */
export const attributeOf = (node: XmlNode, name: string, attribute: string): string => textOf(children(node, name)[0]?.[`@_${attribute}`]);
