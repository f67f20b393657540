/**
 * WCAG 2 contrast of the text a page really draws: each visible element's computed colour against the
 * backgrounds under it (its own and its ancestors', translucent ones blended), over the two extremes of a
 * video behind the embed, white and black. Used by the poll's browser tests (which hold it to 4.5:1, AA)
 * and by scripts/screenshot-demo.ts (which prints the figures of the documents' pictures).
 */
import type { Frame, Page } from 'puppeteer-core';

// The function handed to evaluate runs in the browser: its globals are declared loosely here, in this
// module only, so the server-side program never takes in the DOM library.
declare const document: any;
declare const getComputedStyle: any;

/** One element holding text, as the browser computed it. */
export interface TextSample {
  /** Its class names (what it is) and the start of its text. */
  label: string;
  /** `rgb(…)` / `rgba(…)`. */
  color: string;
  /** The background colours under it, its own first, out to the document's. */
  backgrounds: string[];
}

type Rgba = [number, number, number, number];

function parseColor(css: string): Rgba {
  const parts = /rgba?\(([^)]+)\)/
    .exec(css)?.[1]
    .split(/[\s,/]+/)
    .filter(Boolean)
    .map(Number);
  if (!parts || parts.length < 3 || parts.some(Number.isNaN)) throw new Error(`not an rgb colour: ${css}`);
  return [parts[0], parts[1], parts[2], parts[3] ?? 1];
}

/** `top` drawn over the opaque `under`. */
function blend(top: Rgba, under: Rgba): Rgba {
  const alpha = top[3];
  return [0, 1, 2].map((index) => top[index] * alpha + under[index] * (1 - alpha)).concat(1) as Rgba;
}

function luminance([red, green, blue]: Rgba): number {
  const [r, g, b] = [red, green, blue].map((value) => {
    const channel = value / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of a sample's text with what is under it, `video` at the bottom. */
export function contrastOf(sample: TextSample, video: 'white' | 'black'): number {
  let ground: Rgba = video === 'white' ? [255, 255, 255, 1] : [0, 0, 0, 1];
  for (const background of [...sample.backgrounds].reverse()) ground = blend(parseColor(background), ground);
  const text = blend(parseColor(sample.color), ground);
  const [lighter, darker] = [luminance(text), luminance(ground)].sort((a, b) => b - a);
  return (lighter + 0.05) / (darker + 0.05);
}

/** The samples of every visible element inside `scope` (a selector) that holds text of its own. */
export function textSamples(target: Page | Frame, scope: string): Promise<TextSample[]> {
  return target.evaluate((selector: string) => {
    const samples: { label: string; color: string; backgrounds: string[] }[] = [];
    for (const node of document.querySelectorAll(`${selector}, ${selector} *`)) {
      const text = [...node.childNodes]
        .filter((child: any) => child.nodeType === 3)
        .map((child: any) => child.textContent)
        .join('')
        .trim();
      const box = node.getBoundingClientRect();
      // Visually hidden text (a screen reader's) has no contrast to keep.
      if (text === '' || box.width <= 1 || box.height <= 1 || getComputedStyle(node).visibility === 'hidden') continue;
      const backgrounds: string[] = [];
      for (let at = node; at; at = at.parentElement) backgrounds.push(getComputedStyle(at).backgroundColor);
      samples.push({ label: `${node.className || node.tagName.toLowerCase()}: ${text.slice(0, 24)}`, color: getComputedStyle(node).color, backgrounds });
    }
    return samples;
  }, scope);
}

/** The lowest contrast among `samples` over a white and over a black video, with the sample it is. */
export function lowestContrast(samples: TextSample[]): { ratio: number; label: string; video: 'white' | 'black' } | null {
  let lowest: { ratio: number; label: string; video: 'white' | 'black' } | null = null;
  for (const sample of samples) {
    for (const video of ['white', 'black'] as const) {
      const ratio = contrastOf(sample, video);
      if (!lowest || ratio < lowest.ratio) lowest = { ratio, label: sample.label, video };
    }
  }
  return lowest;
}
