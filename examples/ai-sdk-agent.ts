// An AI SDK agent whose model calls are Praxis episodes: the middleware puts the agent's lessons
// ([G0]. …) and past cases into the system message, records each step and tool result, and ends
// the episode with the answer, so the lessons the answer quotes gain Q. Run it from the repository
// root, with any AI SDK model; this one goes through the Vercel AI Gateway:
//   PRAXIS_API_KEY=pxk_… AI_GATEWAY_API_KEY=… npm run example:ai-sdk
// (on any Node `npm start` runs on; `node examples/ai-sdk-agent.ts` directly needs Node ≥ 22.18).
import { fileURLToPath } from "node:url";
import { gateway, generateText, wrapLanguageModel } from "ai";
import { Praxis } from "../client/dist/index.js";
import { praxisMiddleware } from "../client/src/adapters/ai-sdk.ts";

type Model = Parameters<typeof wrapLanguageModel>[0]["model"];

/** How this example knows an answer is right; yours may run tests, ask a user, or call a judge. */
const isGood = (answer: string) => /retry-after/i.test(answer);

export async function answer(praxis: Praxis, agentId: string, model: Model, task: string): Promise<string> {
  const agent = praxis.agent(agentId);
  await agent.ensure(); // creates the agent if it does not exist yet
  const middleware = praxisMiddleware(agent, {
    prompt: { budgetTokens: 800 },
    outcome: (text) => (isGood(text) ? "success" : "failure"),
  });
  const { text } = await generateText({ model: wrapLanguageModel({ model, middleware }), prompt: task });
  return text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const praxis = new Praxis({ baseUrl: process.env.PRAXIS_URL ?? "http://localhost:8787", apiKey: process.env.PRAXIS_API_KEY ?? "" });
  const model = gateway(process.env.AI_MODEL ?? "openai/gpt-4.1-mini");
  console.log(await answer(praxis, "support-bot", model, "A customer's calls to our payments API fail with 429. What should they do?"));
}
