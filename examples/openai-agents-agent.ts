// An OpenAI Agents SDK agent run as a Praxis episode: the agent's lessons ([G0]. …) and past cases
// go before its instructions, each tool call of the run is an attempt, and the final output ends
// the episode as its answer, so the lessons it quotes gain Q. Run it from the repository root:
//   PRAXIS_API_KEY=pxk_… OPENAI_API_KEY=sk-… npm run example:openai-agents
// (on any Node `npm start` runs on; `node examples/openai-agents-agent.ts` directly needs Node ≥ 22.18).
import { fileURLToPath } from "node:url";
import { Agent, type Model } from "@openai/agents";
import { Praxis } from "../client/dist/index.js";
import { runWithPraxis } from "../client/src/adapters/openai-agents.ts";

/** How this example knows an answer is right; yours may run tests, ask a user, or call a judge. */
const isGood = (answer: string) => /retry-after/i.test(answer);

/** `model` is a model name or a Model object (the default, undefined, is the SDK's default OpenAI model). */
export async function answer(praxis: Praxis, agentId: string, task: string, model?: string | Model): Promise<string> {
  const memory = praxis.agent(agentId);
  await memory.ensure(); // creates the agent if it does not exist yet
  const agent = new Agent({ name: "Support", instructions: "Answer the customer's question in two sentences.", ...(model ? { model } : {}) });
  const result = await runWithPraxis(memory, agent, task, {
    prompt: { budgetTokens: 800 },
    outcome: (text) => (isGood(text) ? "success" : "failure"),
  });
  return result.finalOutput ?? "";
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const praxis = new Praxis({ baseUrl: process.env.PRAXIS_URL ?? "http://localhost:8787", apiKey: process.env.PRAXIS_API_KEY ?? "" });
  console.log(await answer(praxis, "support-bot", "A customer's calls to our payments API fail with 429. What should they do?"));
}
