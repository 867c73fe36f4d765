/** A call to a paid model (chat or embeddings) as the usage ledger meters it: opened before it goes out, settled after. */

/** How an opened call ended. */
export interface CallSettlement {
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  /** True when the tokens are an estimate rather than the provider's own count. */
  estimated: boolean;
  /** The call ended in an error instead of an answer. */
  failed: boolean;
}

/** An opened call's row, to be settled once the answer (or the error) is in. */
export interface OpenCall {
  settle(outcome: CallSettlement): Promise<void>;
}
