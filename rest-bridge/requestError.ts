/**
 * A request the bridge refuses before its operation runs: the status and the message (naming the field)
 * that the router answers as `{ success: false, message }`.
 */

/** A refusal of the request itself (missing credentials, bad parameter or body): its status and message. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
