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
import {
  BREAK,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  visit,
  type ASTNode,
  type ASTVisitor,
  type DirectiveNode,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Identity } from '../shared/auth/identity';
import type { GraphQLLimits } from '../shared/config';

/** Documents known to be within the limits: an operation sent again costs one map lookup. */
const ACCEPTED_CACHE_LIMIT = 1000;
/** Longer documents are checked every time, so the cache cannot be made to hold much memory. */
const CACHED_DOCUMENT_MAX_LENGTH = 16 * 1024;

/**
 * The most errors a refused document is answered with (graphql-js adds one "Too many validation
 * errors" after them and stops validating): a document of a thousand mistakes costs as little to
 * refuse, and to answer, as one of three.
 */
export const MAX_VALIDATION_ERRORS = 2;
/** For graphql-js `validate` and Apollo Server's `validationOptions`. */
export const VALIDATION_OPTIONS = { maxErrors: MAX_VALIDATION_ERRORS } as const;

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
          // Armor leaves `__typename` out of the count by default: 101 `__typename` aliases would pass.
          maxAliasesRule({ n: limits.maxAliases, allowList: [], ...armor }),
          maxDirectivesRule({ n: limits.maxDirectives, ...armor }),
          knownDirectivesOnce,
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
      return {
        errors: [error instanceof GraphQLError ? limitError(error.message, 'GRAPHQL_PARSE_FAILED') : limitError('invalid document', 'GRAPHQL_PARSE_FAILED')],
      };
    }
    if (this.rules.length === 0) return { document };
    const errors = validate(this.schema(), document, this.rules, VALIDATION_OPTIONS);
    return errors.length > 0 ? { errors } : { document };
  }

  /** graphql-js's full validation of a document within the limits, its errors capped like Apollo Server's. */
  validate(document: DocumentNode): readonly GraphQLError[] {
    return validate(this.schema(), document, specifiedRules, VALIDATION_OPTIONS);
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

/**
 * Whether a caller may learn the schema: introspection and names suggested in errors. A developer key or
 * a signed-in account (D or J) may (admin front ends generate their clients); the site ID alone may not.
 */
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

/**
 * Unknown directives and a directive repeated where it may appear once, refused with one error for the
 * whole document: graphql-js reports each occurrence, so `__typename @aa@aa…@aa` made one error per
 * directive (the "directive overloading" an auditor looks for).
 */
function knownDirectivesOnce(context: ValidationContext): ASTVisitor {
  const schema = context.getSchema();
  const problemOf = (directives: readonly DirectiveNode[]): string | null => {
    const seen = new Set<string>();
    for (const directive of directives) {
      const name = directive.name.value;
      const known = schema.getDirective(name);
      if (!known) return `Unknown directive "@${name}".`;
      if (seen.has(name) && !known.isRepeatable) return `The directive "@${name}" can only be used once at this location.`;
      seen.add(name);
    }
    return null;
  };
  return {
    enter(node: ASTNode) {
      const directives = 'directives' in node ? node.directives : undefined;
      const problem = directives?.length ? problemOf(directives) : null;
      if (!problem) return undefined;
      context.reportError(limitError(problem, 'GRAPHQL_VALIDATION_FAILED'));
      return BREAK;
    },
  };
}

/** Whether a document asks for the schema (`__schema` or `__type`; `__typename` is not introspection). */
export function usesIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value !== '__schema' && node.name.value !== '__type') return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

/** The answer to introspection from a caller without D or J. */
export function introspectionRefused(): GraphQLError {
  return new GraphQLError('introspection needs a developer key or a signed-in account', {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
  });
}
