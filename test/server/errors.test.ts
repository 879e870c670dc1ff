import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { withRequest } from '../../src/request-context.js';
import { maskError } from '../../src/yoga.js';

describe('error masking', () => {
  const mask = maskError(createLogger('silent'));

  it('passes expected errors through with their code', () => {
    const wrapped = new GraphQLError('wrapped', { originalError: new ConflictError('taken', { field: 'x' }), path: ['a'] });
    const masked = mask(wrapped) as GraphQLError;
    expect(masked.message).toBe('taken');
    expect(masked.extensions).toEqual({ field: 'x', code: 'CONFLICT' });
  });

  it('hides unexpected errors behind INTERNAL_SERVER_ERROR with the request id', () => {
    const masked = withRequest('req-42', () =>
      mask(new GraphQLError('boom', { originalError: new Error('secret path /var/x'), path: ['a'] })),
    ) as GraphQLError;
    expect(masked.message).not.toContain('secret');
    expect(masked.message).toContain('req-42');
    expect(masked.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR', requestId: 'req-42' });
  });
});
