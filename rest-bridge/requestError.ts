/**
 * A request the bridge refuses before its operation runs: the status and the message (naming the field)
 * that the router answers as `{ success: false, message }`.
 */

/** A refusal of the request itself (missing credentials, bad parameter or body): its status and message, and no stack (a value, not a fault). */
export class RequestError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.status = status;
  }
}
