/**
 * PASSWORD_HASH_COST: scrypt's N for new hashes (default 16384, a power of two within 1024–65536, refused
 * otherwise). A stored hash carries its own N, so a password hashed at one cost verifies at any other.
 */
import { configurePasswordHashing, hashPassword, verifyPassword } from '../../shared/auth/credentials';
import { loadConfig } from '../../shared/config';
import { TEST_SECRETS } from '../helpers/stack';

const configWith = (env: Record<string, string>) => loadConfig({ DATABASE_URL: 'file:unused.db', ...TEST_SECRETS, ...env });

afterAll(() => configurePasswordHashing(configWith({}).passwordHashCost));

it('defaults to 16384 and refuses a cost that is not a power of two within 1024–65536', () => {
  expect(configWith({}).passwordHashCost).toBe(16384);
  expect(configWith({ PASSWORD_HASH_COST: '65536' }).passwordHashCost).toBe(65536);
  expect(() => configWith({ PASSWORD_HASH_COST: '3000' })).toThrow('PASSWORD_HASH_COST must be a power of two, got "3000"');
  expect(() => configWith({ PASSWORD_HASH_COST: '512' })).toThrow(/PASSWORD_HASH_COST must be an integer between 1024 and 65536/);
  expect(() => configWith({ PASSWORD_HASH_COST: '131072' })).toThrow(/PASSWORD_HASH_COST must be an integer between 1024 and 65536/);
});

it('hashes at the configured cost, and a hash of any cost verifies whatever the cost now is', async () => {
  configurePasswordHashing(1024);
  const cheap = await hashPassword('correct horse battery');
  configurePasswordHashing(65536);
  const dear = await hashPassword('correct horse battery');
  expect(cheap.split('$').slice(0, 4)).toEqual(['scrypt', '1024', '8', '1']);
  expect(dear.split('$').slice(0, 4)).toEqual(['scrypt', '65536', '8', '1']);
  configurePasswordHashing(16384);
  expect(await verifyPassword('correct horse battery', cheap)).toBe(true);
  expect(await verifyPassword('correct horse battery', dear)).toBe(true);
  expect(await verifyPassword('wrong horse', dear)).toBe(false);
});
