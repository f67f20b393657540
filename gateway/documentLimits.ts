/**
 * Limits every GraphQL document meets before graphql-js validates it, on HTTP /graphql, the REST
 * bridge's in-process operations and graphql-ws alike, so that no document holds the event loop.
 * Validation is not linear: OverlappingFieldsCanBeMerged compares every pair of fields with the same
 * response name, so `{ site { name name … } }` with 10,000 fields took 13 s. The token limit (graphql-js
 * stops parsing past it) bounds that to a few milliseconds; depth, aliases and directives are counted
 * by GraphQL Armor's rules in a pass of their own, linear, before the full validation runs.
 */
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema, type ValidationContext, type ValidationRule } from 'graphql';
import type { Identity } from '../shared/auth/identity';
import type { GraphQLLimits } from '../shared/config';

/** Documents known to be within the limits: an operation sent again costs one map lookup. */
const ACCEPTED_CACHE_LIMIT = 1000;
/** Longer documents are checked every time, so the cache cannot be made to hold much memory. */
const CACHED_DOCUMENT_MAX_LENGTH = 16 * 1024;

/** A document that broke a limit, as the error a GraphQL client expects (HTTP 400 at the edge). */
function limitError(message: string, code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED'): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

export class DocumentLimits {
  private readonly rules: ValidationRule[];
  private readonly accepted = new Set<string>();

  /** `limits` null = no limits (GRAPHQL_LIMITS=off, for the bench only). */
  constructor(
    readonly limits: GraphQLLimits | null,
    private readonly schema: () => GraphQLSchema,
  ) {
    const report = [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(limitError(error.message, 'GRAPHQL_VALIDATION_FAILED'))];
    const armor = { propagateOnRejection: false, onReject: report };
    this.rules = limits
      ? [
          maxDepthRule({ n: limits.maxDepth, ...armor }),
          maxAliasesRule({ n: limits.maxAliases, ...armor }),
          maxDirectivesRule({ n: limits.maxDirectives, ...armor }),
        ]
      : [];
  }

  /**
   * Parses a document within the token limit and checks depth, aliases and directives: the document,
   * or the errors that refuse it (a syntax error included). Full validation is the caller's next step.
   */
  parse(query: string): { document: DocumentNode } | { errors: readonly GraphQLError[] } {
    let document: DocumentNode;
    try {
      document = parse(query, this.limits ? { maxTokens: this.limits.maxTokens } : undefined);
    } catch (error) {
      return { errors: [error instanceof GraphQLError ? limitError(error.message, 'GRAPHQL_PARSE_FAILED') : limitError('invalid document', 'GRAPHQL_PARSE_FAILED')] };
    }
    if (this.rules.length === 0) return { document };
    const errors = validate(this.schema(), document, this.rules);
    return errors.length > 0 ? { errors } : { document };
  }

  /**
   * Null when the document is within the limits; otherwise the error that refuses it (a syntax error
   * included). Accepted documents of moderate length are remembered; a refusal is cheap to repeat.
   */
  check(query: string): GraphQLError | null {
    if (!this.limits || this.accepted.has(query)) return null;
    const parsed = this.parse(query);
    if ('errors' in parsed) return parsed.errors[0];
    if (query.length <= CACHED_DOCUMENT_MAX_LENGTH) {
      if (this.accepted.size >= ACCEPTED_CACHE_LIMIT) this.accepted.delete(this.accepted.values().next().value as string);
      this.accepted.add(query);
    }
    return null;
  }
}

/** Whether a caller may see the schema's names in errors: a developer key or a signed-in account (D or J). */
export function seesSchemaHints(identity: Identity | null | undefined): boolean {
  return Boolean(identity && (identity.developerKey || identity.account));
}

/**
 * graphql-js suggests names that exist ("Did you mean …?"); to a caller without D or J that maps the
 * schema beyond what introspection-free clients should learn, so the hint is cut.
 */
export function withoutSuggestions(message: string): string {
  return message.replace(/ ?Did you mean .+?\?$/, '');
}
