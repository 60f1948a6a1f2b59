/** The body of an answer failed after its headers came (not an unreachable upstream). */
export class BodyFailed extends Error {
  constructor(cause?: unknown) {
    super('upstream connection closed before the end of the body', { cause });
    this.name = 'BodyFailed';
  }
}
