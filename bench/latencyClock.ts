/**
 * The clock the latency bench (bench/latency.ts) burns into the encoder's frames, and its reader: a strip
 * of boxes across the top of the picture, white or black, one per bit of the frame's time in milliseconds
 * (ffmpeg's `t`, seconds since the encoder's first frame). Boxes rather than drawn digits: H.264 keeps a
 * 12×16 white box on black readable at any bitrate, and a box is read back from one pixel. The first box is
 * always white (the strip is there) and the last is the parity of the bits (a misread frame is dropped).
 * Encoder and reader are built from the one layout below, so neither can drift from the other
 * (test/show/latency-clock.unit.ts runs ffmpeg and reads its frames back).
 */

/** Bits of the millisecond count: 2^22 ms is 69 minutes, far beyond any run. */
export const CLOCK_BITS = 22;

/** Where the strip sits in the picture, in pixels of the encoded frame (at least 320 × 24). */
export const CLOCK_LAYOUT = { left: 4, top: 4, cellWidth: 12, cellHeight: 16 } as const;

/** The boxes: the marker, the bits from the lowest, the parity. */
const CELLS = CLOCK_BITS + 2;

/** An ffmpeg expression: the frame's time in whole milliseconds. */
const MILLISECONDS = 'floor(t*1000+0.5)';
const bitExpression = (bit: number) => `mod(floor(${MILLISECONDS}/${2 ** bit}),2)`;

const cellX = (cell: number) => CLOCK_LAYOUT.left + cell * CLOCK_LAYOUT.cellWidth;

/**
 * The ffmpeg filter chain (comma-separated, for `-vf` or a filter graph) that draws the clock: a black
 * strip, then each box white while its expression holds (the timeline's `enable`, evaluated per frame).
 */
export function clockFilter(): string {
  const { top, cellWidth, cellHeight } = CLOCK_LAYOUT;
  const box = (cell: number, color: string, enable?: string) =>
    `drawbox=x=${cellX(cell)}:y=${top}:w=${cellWidth}:h=${cellHeight}:color=${color}:t=fill${enable ? `:enable='${enable}'` : ''}`;
  const bits = Array.from({ length: CLOCK_BITS }, (_, bit) => box(bit + 1, 'white', `eq(${bitExpression(bit)},1)`));
  const parity = `eq(mod(${Array.from({ length: CLOCK_BITS }, (_, bit) => bitExpression(bit)).join('+')},2),1)`;
  return [
    `drawbox=x=0:y=0:w=${cellX(CELLS) + CLOCK_LAYOUT.left}:h=${top * 2 + cellHeight}:color=black:t=fill`,
    box(0, 'white'),
    ...bits,
    box(CELLS - 1, 'white', parity),
  ].join(',');
}

/** The pixel read for each box (its centre), in the order decodeClock takes their brightness. */
export function clockCellCentres(): { x: number; y: number }[] {
  const y = CLOCK_LAYOUT.top + Math.floor(CLOCK_LAYOUT.cellHeight / 2);
  return Array.from({ length: CELLS }, (_, cell) => ({ x: cellX(cell) + Math.floor(CLOCK_LAYOUT.cellWidth / 2), y }));
}

/** The width and height of the picture's top-left corner that holds the strip. */
export const CLOCK_STRIP = { width: cellX(CELLS) + CLOCK_LAYOUT.left, height: CLOCK_LAYOUT.top * 2 + CLOCK_LAYOUT.cellHeight } as const;

/**
 * The milliseconds a frame carries, from the brightness (0–255) of each box's centre (clockCellCentres'
 * order); null when the strip is not there or a bit was misread (the parity does not match).
 */
export function decodeClock(brightness: readonly number[]): number | null {
  if (brightness.length !== CELLS) return null;
  const bits = brightness.map((value) => (value >= 128 ? 1 : 0));
  if (bits[0] !== 1) return null;
  let milliseconds = 0;
  let ones = 0;
  for (let bit = 0; bit < CLOCK_BITS; bit += 1) {
    milliseconds += bits[bit + 1] * 2 ** bit;
    ones += bits[bit + 1];
  }
  return ones % 2 === bits[CELLS - 1] ? milliseconds : null;
}

/** The milliseconds of a frame in 8-bit grey (one byte a pixel, rows of `width`), as decodeClock reads them. */
export function readGreyFrame(frame: Uint8Array, width: number): number | null {
  return decodeClock(clockCellCentres().map(({ x, y }) => frame[y * width + x]));
}
