/**
 * The service's check of simulcast targets, in process (the e2e file, test/show/simulcast.part.ts, runs them
 * live): rtmp(s) only, hosts judged as the outbound check judges any partner's (encoded loopback forms
 * included, OUTBOUND_ALLOW_HOSTS with rtmp's default port), names unique, keys kept on an update.
 */
import { checkOutboundUrl, RTMP_SCHEMES } from '../../shared/outbound';
import type { SubgraphContext } from '../../shared/subgraph';
import { checkSimulcastTargets } from '../../subgraphs/integrations/simulcast';

const policy = { allowPrivate: false, allowHosts: ['127.0.0.1:1935', 'localhost:443'] };
const ctx = { config: { outboundAllowPrivate: false, outboundAllowHosts: policy.allowHosts } } as unknown as Pick<SubgraphContext, 'config'>;
const check = (url: string) => () => checkOutboundUrl(url, 'url', policy, RTMP_SCHEMES);

describe('rtmp targets as outbound addresses', () => {
  it('takes public rtmp:// and rtmps:// hosts, and the host:port targets OUTBOUND_ALLOW_HOSTS names', () => {
    for (const url of [
      'rtmp://a.rtmp.youtube.com/live2',
      'rtmps://live-api-s.facebook.com:443/rtmp/',
      'rtmp://1.2.3.4:1936/app',
      'rtmp://127.0.0.1/live',
      'rtmps://localhost/live',
    ])
      expect(check(url)).not.toThrow();
  });

  it('refuses loopback, private and metadata hosts in every spelling, and any other scheme', () => {
    for (const url of [
      'rtmp://127.0.0.1:1936/live',
      'rtmp://127.1/live',
      'rtmp://2130706433/live',
      'rtmp://0x7f000001/live',
      'rtmp://[::1]/live',
      'rtmp://localhost/live',
      'rtmp://10.0.0.8/live',
      'rtmps://169.254.169.254/x',
    ])
      expect(check(url)).toThrow('url must be a public address');
    for (const url of ['http://a.example/live', 'srt://a.example:9000', 'rtmp://', 'not a url', 'rtmp://exa mple.com/live'])
      expect(check(url)).toThrow('url must be rtmp:// or rtmps://');
  });
});

describe('a stream’s target list', () => {
  const target = (name: string, streamKey?: string) => ({ name, url: 'rtmp://a.rtmp.youtube.com/live2', streamKey });

  it('keeps the key of a target named without one, and wants one for a new target', () => {
    const kept = new Map([['YouTube', 'kept-key']]);
    expect(checkSimulcastTargets(ctx, [target('YouTube'), target('Twitch', 'new-key')], kept).map((entry) => entry.streamKey)).toEqual(['kept-key', 'new-key']);
    expect(() => checkSimulcastTargets(ctx, [target('Twitch')], kept)).toThrow('simulcastTargets[0].streamKey is required for a new target');
  });

  it('refuses duplicate names, names and keys out of bounds, and a sixth target, naming the field', () => {
    expect(() => checkSimulcastTargets(ctx, [target('A', 'k'), target(' A ', 'k')])).toThrow('simulcastTargets[1].name "A" names another target');
    expect(() => checkSimulcastTargets(ctx, [target('', 'k')])).toThrow('simulcastTargets[0].name must be 1 to 60 characters');
    expect(() => checkSimulcastTargets(ctx, [target('A', 'k'.repeat(501))])).toThrow('simulcastTargets[0].streamKey must be 1 to 500 characters');
    expect(() =>
      checkSimulcastTargets(
        ctx,
        Array.from({ length: 6 }, (_, index) => target(`T${index}`, 'k')),
      ),
    ).toThrow('simulcastTargets must hold at most 5 targets');
  });
});
