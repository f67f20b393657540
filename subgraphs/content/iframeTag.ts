/**
 * An iframe panel's `renderer.iframe_tag` (docs/design.md "The whole channel in the watch page"): the watch
 * page frames what it names, so only one `<iframe>` with an `https:` `src` and a short list of harmless
 * attributes is stored. The tag is read by htmlparser2 (a browser-grade tokenizer: entities decoded, case
 * folded, quoting as browsers read it), never by a regular expression, so what is checked is what a browser
 * would build.
 */
import { DomUtils, parseDocument } from 'htmlparser2';
import { badInput } from '../../shared/errors';

const FIELD = 'renderer.iframe_tag';

/** The attributes an iframe panel may carry; `sandbox` and `srcdoc` are the page's to decide, never the tag's. */
const ALLOWED_ATTRIBUTES = new Set(['src', 'title', 'width', 'height', 'allow', 'allowfullscreen', 'loading', 'referrerpolicy', 'frameborder']);
const MAX_LENGTH = 4096;

const refuse = (why: string) => badInput(`${FIELD} must be one <iframe> with an https: src: ${why}`, FIELD);

/** The checked tag's attributes (what the watch page renders, sandboxed); throws BAD_USER_INPUT naming the field. */
export function checkIframeTag(tag: string): Record<string, string> {
  if (tag.length > MAX_LENGTH) throw refuse(`at most ${MAX_LENGTH} characters`);
  const document = parseDocument(tag.trim(), { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true });
  const blank = (node: (typeof document.children)[number]) => DomUtils.isText(node) && node.data.trim() === '';
  const nodes = document.children.filter((node) => !blank(node));
  if (nodes.length !== 1) throw refuse('found more than one node, or none');
  const [node] = nodes;
  if (!DomUtils.isTag(node) || node.name !== 'iframe') throw refuse('found something other than an iframe');
  if (!node.children.every(blank)) throw refuse('an iframe holds nothing');
  const attributes = node.attribs;
  for (const name of Object.keys(attributes)) {
    if (!ALLOWED_ATTRIBUTES.has(name)) throw refuse(`the attribute ${name} is not allowed`);
  }
  let src: URL;
  try {
    src = new URL(attributes.src ?? '');
  } catch {
    throw refuse('src is not a URL');
  }
  if (src.protocol !== 'https:') throw refuse('src is not https:');
  return attributes;
}
