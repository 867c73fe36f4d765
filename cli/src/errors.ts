/** Bad arguments or no URL/key configured: exit 2. */
export class UsageError extends Error {}

/** A practice run or evaluation that ended without success: exit 4. */
export class UnsuccessfulError extends Error {}
