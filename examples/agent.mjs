// One agent turn wrapped in a Praxis episode: pull the lessons and past cases for the task, answer
// with them in the system prompt, check the answer, report how it went. Run it from the repository
// root: PRAXIS_API_KEY=pxk_… OPENAI_API_KEY=sk-… node examples/agent.mjs
import OpenAI from "openai";
import { Praxis } from "../client/dist/index.js";

const praxis = new Praxis({ baseUrl: process.env.PRAXIS_URL ?? "http://localhost:8787", apiKey: process.env.PRAXIS_API_KEY });
const agent = praxis.agent("support-bot");
await agent.ensure(); // creates the agent if it does not exist yet
const task = "A customer's calls to our payments API fail with 429. What should they do?";
// How this example knows an answer is right; yours may run tests, ask a user, or call a judge.
const isGood = (answer) => /retry-after/i.test(answer);

const answer = await agent.withEpisode(task, async (ep) => {
  const { prompt } = await ep.prompt({ budgetTokens: 800 }); // lessons ([G0]. …) and past cases for this task
  // If this call throws (a wrong model name, a network error), the episode ends `abandoned`: a
  // broken call says nothing about the task, so nothing learns from it, and the error is rethrown.
  const chat = await new OpenAI().chat.completions.create({
    model: process.env.OPENAI_MODEL ?? "gpt-4o-mini",
    messages: [
      { role: "system", content: `${prompt}\n\nQuote the [G#] label of every lesson you use.` },
      { role: "user", content: task },
    ],
  });
  const text = chat.choices[0].message.content ?? "";
  await ep.attempt({ description: "answered with the lessons in the system prompt", ok: isGood(text) });
  // A bad answer ends the episode as a failure; the lessons it quoted lose Q.
  if (!isGood(text)) {
    await ep.end({ outcome: "failure", answer: text });
    process.exitCode = 1; // the answer is printed, and the exit status says the task failed
  }
  // Returned, the text is the episode's answer: it ends as a success, and the [G#] it quotes gain Q.
  return text;
});
console.log(answer);
