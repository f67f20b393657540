/**
 * The live test pattern the tests and the bench push to the reference provider, as ffmpeg arguments: a
 * 320×240 picture with a tone read in real time, and the encoder settings a live encoder would use —
 * x264 at its fastest holding no frame back (zerolatency: no lookahead, no B-frames), a keyframe each
 * second (live fragments of whole seconds cut cleanly), AAC sound.
 */

/** Frames a second of the test pattern (and its keyframe interval). */
export const TEST_PATTERN_FPS = 25;

/** The inputs: picture (input 0, in real time: `-re`) and tone (input 1). */
export const testPatternInputs = (): string[] => [
  ...['-re', '-f', 'lavfi', '-i', `testsrc=size=320x240:rate=${TEST_PATTERN_FPS}`],
  ...['-f', 'lavfi', '-i', 'sine=frequency=440'],
];

/** The encoders for an FLV push over RTMP. */
export const liveEncoderArgs = (): string[] => [
  ...['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', String(TEST_PATTERN_FPS)],
  ...['-c:a', 'aac'],
];
