// The adapters are loaded from source (`client/src/adapters/*.ts`; Node ≥ 22.18 strips their types)
// beside the compiled client, so they import nothing of the client at runtime and take its agent
// and episode by their public members: a `client/dist` agent and a `client/src` agent both fit.
import type { PromptQuery, Schemas } from "../index.js";

export type { PromptQuery, Schemas };

/** A client agent (`praxis.agent(id)`), as far as the adapters use it. */
export interface PraxisAgent {
  startEpisode(task: string): Promise<PraxisEpisode>;
}

/** A client episode, as far as the adapters use it. */
export interface PraxisEpisode {
  readonly id: string;
  prompt(query?: Partial<PromptQuery>): Promise<Schemas["PromptBlock"]>;
  attempt(attempt: Schemas["AttemptCreate"]): Promise<unknown>;
  cite(...idsOrLabels: string[]): void;
  end(result: Schemas["EpisodeEnd"]): Promise<unknown>;
}

/** What a model is told after the prompt block, so the answer names the lessons it used. */
export const CITE_INSTRUCTION = "Quote the [G#] label of every lesson you use in your answer.";

/** The `[G#]` labels a text quotes, in order, each once. */
export function citedLabels(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(/\[(G\d+)\]/g), (m) => m[1]!))];
}

/** The system text: the prompt block, then what the model should do with it. */
export function joinInstructions(block: string, instruction = CITE_INSTRUCTION): string {
  return [block.trim(), instruction].filter(Boolean).join("\n\n");
}
