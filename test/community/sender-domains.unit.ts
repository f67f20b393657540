/**
 * The configuration of sender-domain checks, read once at start: DNS_SERVERS as Node's resolver takes
 * it (refused at start when it is not), the DNS timeout and the recheck interval.
 */
import { stopAll, testConfig } from '../helpers/stack';

const configWith = (env: Record<string, string>) => testConfig('file:unused.db', env);
// Removes the DATA_DIRs the configurations made.
afterAll(stopAll);

it('defaults to the system’s DNS servers, a 5 s timeout and an hourly recheck', () => {
  expect(configWith({})).toMatchObject({ dnsServers: null, dnsTimeoutMs: 5000, senderRecheckMs: 3_600_000 });
});

it.each([
  ['127.0.0.1', ['127.0.0.1']],
  ['127.0.0.1:5353, 9.9.9.9', ['127.0.0.1:5353', '9.9.9.9']],
  ['::1', ['::1']],
  ['[2001:db8::53]:5353,[::1]', ['[2001:db8::53]:5353', '[::1]']],
])('takes DNS_SERVERS=%s', (value, servers) => {
  expect(configWith({ DNS_SERVERS: value }).dnsServers).toEqual(servers);
});

it.each(['dns.example.com', '127.0.0.1:0', '127.0.0.1:70000', '127.0.0.1:x', '[::1', '1.2.3.4,', '300.1.1.1'])(
  'refuses DNS_SERVERS=%s at start, naming it',
  (value) => {
    expect(() => configWith({ DNS_SERVERS: value })).toThrow(/^DNS_SERVERS must be comma-separated ip\[:port\] entries/);
  },
);

it.each([
  ['DNS_TIMEOUT_MS', '10'],
  ['SENDER_RECHECK_MS', 'hourly'],
])('refuses %s=%s at start', (name, value) => {
  expect(() => configWith({ [name]: value })).toThrow(new RegExp(`^${name} must be an integer`));
});
