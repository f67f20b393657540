/** The pure rules behind /metrics access, operation-name labels and traceparent parsing. */
import { mayReadMetrics, operationLabel, registerOperationNames } from '../../shared/metrics';
import { traceIdOf } from '../../shared/tracing';

describe('mayReadMetrics', () => {
  const token = 'metrics-token-0123456789';
  const from = (remoteAddress: string, authorization?: string, forwarded = false) => ({ remoteAddress, authorization, forwarded });

  it('lets loopback callers in without a token', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
      expect(mayReadMetrics(from(address), null)).toBe(true);
      expect(mayReadMetrics(from(address), token)).toBe(true);
    }
  });

  it('refuses other callers unless they send the token, and everyone when no token is set', () => {
    for (const address of ['10.0.0.5', '203.0.113.9', '::ffff:10.0.0.5', '2001:db8::1', '']) {
      expect(mayReadMetrics(from(address), token)).toBe(false);
      expect(mayReadMetrics(from(address, 'Bearer wrong-token-0123456789'), token)).toBe(false);
      expect(mayReadMetrics(from(address, token), token)).toBe(false);
      expect(mayReadMetrics(from(address, `Bearer ${token}`), token)).toBe(true);
      expect(mayReadMetrics(from(address, 'Bearer '), null)).toBe(false);
    }
  });

  it('treats a proxied request as not loopback', () => {
    expect(mayReadMetrics(from('127.0.0.1', undefined, true), token)).toBe(false);
    expect(mayReadMetrics(from('127.0.0.1', `Bearer ${token}`, true), token)).toBe(true);
  });
});

describe('operationLabel', () => {
  it('keeps known names, collapses anonymous, ID-like and invalid names, and caps the rest', () => {
    registerOperationNames(['query ListOverlays { result: overlays { id } }', 'mutation CreateOverlay($input: X!) { a }', '{ anonymous }']);
    expect(operationLabel('ListOverlays')).toBe('ListOverlays');
    expect(operationLabel(null)).toBe('anonymous');
    expect(operationLabel('Overlay5f3a9c1e2b7d4a6c8e0f1a2b')).toBe('other');
    expect(operationLabel('Page123')).toBe('other');
    expect(operationLabel('not a name')).toBe('other');
    const names = Array.from(
      { length: 150 },
      (_, index) => `Client${String.fromCharCode(65 + (index % 26))}${String.fromCharCode(65 + Math.floor(index / 26))}`,
    );
    const labels = new Set(names.map(operationLabel));
    expect(labels.size).toBe(101);
    expect(labels.has('other')).toBe(true);
    // Names registered from the route table stay themselves after the cap is reached.
    expect(operationLabel('CreateOverlay')).toBe('CreateOverlay');
  });
});

describe('traceIdOf', () => {
  it('reads the trace id of a valid traceparent only', () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    expect(traceIdOf(`00-${traceId}-00f067aa0ba902b7-01`)).toBe(traceId);
    expect(traceIdOf(undefined)).toBeNull();
    expect(traceIdOf(`00-${'0'.repeat(32)}-00f067aa0ba902b7-01`)).toBeNull();
    expect(traceIdOf(`00-${traceId}-${'0'.repeat(16)}-01`)).toBeNull();
    expect(traceIdOf(`00-${traceId.toUpperCase()}-00f067aa0ba902b7-01`)).toBeNull();
    expect(traceIdOf(`00-${traceId}-00f067aa0ba902b7`)).toBeNull();
  });
});
