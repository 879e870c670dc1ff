import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_REDIS_PREFIX, loadConfig, redactRedisUrl } from '../../src/config.js';

const env = { OPENPROGRAM_HOME: '/tmp/em-config-test' };

describe('security configuration', () => {
  it('has loopback defaults: no origins, no public URL, no token, the documented caps', () => {
    const config = loadConfig([], env);
    expect(config).toMatchObject({
      host: '127.0.0.1',
      allowedOrigins: [],
      publicUrl: undefined,
      token: undefined,
      maxWsConnections: 1000,
      maxWsPerAddress: 200,
      maxSubscriptionsPerConnection: 100,
    });
  });

  it('takes every option from its variable, and the flag wins', () => {
    const fromEnv = loadConfig([], {
      ...env,
      ENTITY_MEMORY_ALLOWED_ORIGINS: 'http://localhost:5173, https://ui.example/',
      ENTITY_MEMORY_PUBLIC_URL: 'https://mem.example',
      ENTITY_MEMORY_TOKEN: 'env-token-0123456789',
      ENTITY_MEMORY_MAX_WS_CONNECTIONS: '50',
      ENTITY_MEMORY_MAX_WS_PER_ADDRESS: '5',
      ENTITY_MEMORY_MAX_SUBSCRIPTIONS_PER_CONNECTION: '7',
    });
    expect(fromEnv).toMatchObject({
      allowedOrigins: ['http://localhost:5173', 'https://ui.example', 'https://mem.example'],
      publicUrl: 'https://mem.example',
      token: 'env-token-0123456789',
      maxWsConnections: 50,
      maxWsPerAddress: 5,
      maxSubscriptionsPerConnection: 7,
    });
    const fromFlags = loadConfig(
      ['--allowed-origin', 'http://a.example', '--allowed-origin', 'http://b.example:81', '--token', 'flag-token-0123456789', '--max-ws-connections', '9'],
      { ...env, ENTITY_MEMORY_ALLOWED_ORIGINS: 'http://c.example', ENTITY_MEMORY_TOKEN: 'env-token-0123456789' },
    );
    expect(fromFlags.allowedOrigins).toEqual(['http://a.example', 'http://b.example:81']);
    expect(fromFlags.token).toBe('flag-token-0123456789');
    expect(fromFlags.maxWsConnections).toBe(9);
    // An empty variable counts as unset.
    expect(loadConfig([], { ...env, ENTITY_MEMORY_TOKEN: '' }).token).toBeUndefined();
  });

  it.each([
    [['--allowed-origin', '*'], /--allowed-origin must be a URL/],
    [['--allowed-origin', 'ftp://x.example'], /http:\/\/ or https:\/\//],
    [['--allowed-origin', 'http://user:pw@x.example'], /without credentials/],
    [['--allowed-origin', 'http://x.example/app'], /no path/],
    [['--public-url', 'https://x.example/mem'], /--public-url must be scheme:\/\/host\[:port\] with no path/],
    [['--token', 'short'], /--token must be at least 16 characters/],
    [['--token', 'has spaces in it, sixteen+'], /--token/],
    [['--max-ws-connections', '0'], /--max-ws-connections must be a whole number/],
    [['--max-ws-per-address', 'many'], /--max-ws-per-address/],
    [['--max-subscriptions-per-connection', '-1'], /--max-subscriptions-per-connection/],
  ])('refuses %j', (argv, message) => {
    expect(() => loadConfig(argv, env)).toThrow(ConfigError);
    expect(() => loadConfig(argv, env)).toThrow(message);
  });
});

describe('Redis configuration', () => {
  it('has no Redis by default (events stay in the process) and the default prefix', () => {
    expect(loadConfig([], env)).toMatchObject({ redisUrl: undefined, redisPrefix: DEFAULT_REDIS_PREFIX });
    expect(DEFAULT_REDIS_PREFIX).toBe('entity-memory:');
    // An empty variable counts as unset.
    expect(loadConfig([], { ...env, REDIS_URL: '', ENTITY_MEMORY_REDIS_PREFIX: '' })).toMatchObject({ redisUrl: undefined, redisPrefix: 'entity-memory:' });
  });

  it('takes REDIS_URL and ENTITY_MEMORY_REDIS_PREFIX, and the flags win', () => {
    const redisEnv = { ...env, REDIS_URL: 'rediss://:secret@cache.example:6380/2', ENTITY_MEMORY_REDIS_PREFIX: 'staging:' };
    expect(loadConfig([], redisEnv)).toMatchObject({ redisUrl: 'rediss://:secret@cache.example:6380/2', redisPrefix: 'staging:' });
    expect(loadConfig(['--redis-url', 'redis://127.0.0.1:6379', '--redis-prefix', 'a/b{c}'], redisEnv)).toMatchObject({
      redisUrl: 'redis://127.0.0.1:6379',
      redisPrefix: 'a/b{c}',
    });
  });

  it.each([
    [['--redis-url', 'localhost:6379'], /--redis-url must start with redis:\/\/ or rediss:\/\/, not "localhost:"/],
    [['--redis-url', 'http://cache.example:6379'], /--redis-url must start with redis:\/\/ or rediss:\/\//],
    [['--redis-url', 'not a url'], /--redis-url must be a URL such as redis:\/\/127\.0\.0\.1:6379/],
    [['--redis-url', ''], /--redis-url must be a URL/],
    [['--redis-url', 'redis:cache'], /--redis-url must name a host/],
    [['--redis-url', 'redis://cache.example:6379/queue'], /may end with a database number .* got "redis:\/\/cache\.example:6379\/queue"/],
    [['--redis-prefix', ''], /--redis-prefix must be 1 to 64 printable ASCII characters without spaces/],
    [['--redis-prefix', 'two words'], /--redis-prefix must be 1 to 64/],
    [['--redis-prefix', 'x'.repeat(65)], /--redis-prefix must be 1 to 64/],
    [['--redis-prefix', 'tab\there'], /--redis-prefix/],
  ])('refuses %j', (argv, message) => {
    expect(() => loadConfig(argv, env)).toThrow(ConfigError);
    expect(() => loadConfig(argv, env)).toThrow(message);
  });

  it('never repeats a password in its refusals', () => {
    for (const url of ['redis://user:pa55word@cache.example:6379/queue', 'http://user:pa55word@cache.example', 'redis://user:pa55word@']) {
      const refusal = (() => {
        try {
          loadConfig(['--redis-url', url], env);
        } catch (error) {
          return error as Error;
        }
        throw new Error(`${url} was accepted`);
      })();
      expect(refusal).toBeInstanceOf(ConfigError);
      expect(refusal.message).not.toContain('pa55word');
    }
    expect(redactRedisUrl('rediss://user:pa55word@cache.example:6380/2')).toBe('rediss://cache.example:6380/2');
  });
});
