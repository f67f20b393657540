/**
 * Checks a message's DKIM-Signature as a receiving server does (RFC 6376, rsa-sha256 with relaxed or
 * simple canonicalization), with node:crypto against a public key the test looked up in DNS: the body
 * hash, then the signature over the signed headers.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';

export interface DkimResult {
  /** The signing domain (d=) and selector (s=). */
  domain: string;
  selector: string;
  bodyHashMatches: boolean;
  signatureValid: boolean;
}

/** Header fields of a raw message, in order, each as it stands (folded lines included, without the last CRLF). */
function headerFields(head: string): string[] {
  const fields: string[] = [];
  for (const line of head.split('\r\n')) {
    if (/^[ \t]/.test(line) && fields.length > 0) fields[fields.length - 1] += `\r\n${line}`;
    else fields.push(line);
  }
  return fields;
}

const nameOf = (field: string) => field.slice(0, field.indexOf(':')).trim().toLowerCase();

function relaxedHeader(field: string): string {
  const at = field.indexOf(':');
  const value = field
    .slice(at + 1)
    .replace(/\r\n(?=[ \t])/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim();
  return `${nameOf(field)}:${value}`;
}

function canonicalBody(body: string, relaxed: boolean): string {
  let lines = body.split('\r\n');
  if (relaxed) lines = lines.map((line) => line.replace(/[ \t]+/g, ' ').replace(/ $/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  // Simple turns an empty body into one CRLF; relaxed leaves it empty.
  if (lines.length === 0) return relaxed ? '' : '\r\n';
  return `${lines.join('\r\n')}\r\n`;
}

function tagsOf(value: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of value.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) tags.set(part.slice(0, at).trim(), part.slice(at + 1).replace(/\s+/g, ''));
  }
  return tags;
}

/** Verifies the message's (first) DKIM-Signature with `publicKeyBase64` (the p= of the DNS record). */
export function verifyDkim(raw: string, publicKeyBase64: string): DkimResult {
  const split = raw.indexOf('\r\n\r\n');
  const fields = headerFields(raw.slice(0, split));
  const body = raw.slice(split + 4);
  const signatureField = fields.find((field) => nameOf(field) === 'dkim-signature');
  if (!signatureField) throw new Error('the message has no DKIM-Signature');
  const tags = tagsOf(signatureField.slice(signatureField.indexOf(':') + 1));
  if (tags.get('a') !== 'rsa-sha256') throw new Error(`unexpected DKIM algorithm ${tags.get('a')}`);
  const [headerCanon, bodyCanon = 'simple'] = (tags.get('c') ?? 'simple/simple').split('/');
  const bodyHash = createHash('sha256')
    .update(canonicalBody(body, bodyCanon === 'relaxed'))
    .digest('base64');

  // Each name in h= takes that header's last instance not yet used (RFC 6376 5.4.2).
  const unused = [...fields];
  const signed = (tags.get('h') ?? '').split(':').map((name) => {
    const index = unused.map(nameOf).lastIndexOf(name.trim().toLowerCase());
    if (index === -1) return null;
    return unused.splice(index, 1)[0];
  });
  const canon = (field: string) => (headerCanon === 'relaxed' ? relaxedHeader(field) : field);
  // The signature's own field is signed with an empty b= and no CRLF after it.
  const unsignedSignature = signatureField.replace(/(;[ \t\r\n]*b=)[^;]*/, (_match, tag: string) => tag);
  const data = signed
    .filter((field): field is string => field !== null)
    .map((field) => `${canon(field)}\r\n`)
    .join('');
  const key = createPublicKey({ key: Buffer.from(publicKeyBase64, 'base64'), format: 'der', type: 'spki' });
  const signatureValid = verify('sha256', Buffer.from(`${data}${canon(unsignedSignature)}`), key, Buffer.from(tags.get('b') ?? '', 'base64'));
  return { domain: tags.get('d') ?? '', selector: tags.get('s') ?? '', bodyHashMatches: bodyHash === tags.get('bh'), signatureValid };
}
