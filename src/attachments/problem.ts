/** Why a shared file was not read: its `reason` completes "I could not read <name>: …". */
export class AttachmentProblem extends Error {
  constructor(
    readonly kind:
      'refused' | 'download' | 'too_large' | 'too_many' | 'unsupported' | 'encrypted' | 'damaged' | 'timeout',
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = 'AttachmentProblem';
  }
}
