import { DurableObject } from "cloudflare:workers";
export class AgentMemory extends DurableObject { async ping() { return "pong"; } }
export class PracticeRun extends DurableObject {}
export default {
  async fetch(req: Request, env: any) { 
    const stub = env.AGENT_MEMORY.getByName("x");
    return new Response(await stub.ping());
  },
} satisfies ExportedHandler;
