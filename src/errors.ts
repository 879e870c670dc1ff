/**
 * Expected failures, each with the `extensions.code` the GraphQL contract
 * promises. Resolvers throw these; src/yoga.ts turns them into GraphQL errors
 * and masks everything else (logging it with the request id).
 */
export type ErrorCode = 'BAD_USER_INPUT' | 'NOT_FOUND' | 'FORBIDDEN' | 'CONFLICT' | 'UNAUTHENTICATED';

export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  /** Extra machine-readable detail, copied into `extensions`. */
  readonly details: Record<string, unknown> | undefined;

  constructor(message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }
}

export class BadUserInputError extends AppError {
  readonly code = 'BAD_USER_INPUT';
}

export class NotFoundError extends AppError {
  readonly code = 'NOT_FOUND';
}

export class ForbiddenError extends AppError {
  readonly code = 'FORBIDDEN';
}

export class ConflictError extends AppError {
  readonly code = 'CONFLICT';
}
