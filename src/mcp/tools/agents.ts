import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/server";
import { AgentSchema } from "../../core/agent-types";
import { unwrap } from "../../core/errors";
import { depsOf } from "../../doors/use-case";
import { listAgents, upsertAgent } from "../../use-cases/agents";
import { AgentIdArg, guarded, plural, toolResult, type ToolContext } from "../tool";

const ListInput = z
  .object({
    limit: z.number().int().min(1).max(200).default(50).describe("How many agents to return (1-200)"),
    cursor: z.string().max(200).optional().describe("nextCursor of the previous page, to read the next one"),
  })
  .strict();
const ListOutput = z.object({ items: z.array(AgentSchema), nextCursor: z.string().nullable() });

const CreateInput = z
  .object({
    agentId: AgentIdArg,
    displayName: z.string().trim().min(1).max(200).optional().describe("A human name for the agent; changes the name of an existing agent"),
  })
  .strict();
const CreateOutput = AgentSchema.extend({ created: z.boolean().describe("false when the agent already existed") });

export function registerAgentTools(server: McpServer, c: ToolContext) {
  const deps = depsOf(c);
  const caller = c.get("principal");

  server.registerTool(
    "list_agents",
    {
      description: "The agents this API key can use, by id. Each has its own lessons, cases and episodes.",
      inputSchema: ListInput,
      outputSchema: ListOutput,
      annotations: { readOnlyHint: true },
    },
    ({ limit, cursor }) =>
      guarded(c, async () => {
        const page = unwrap(await listAgents(deps, caller, { limit, cursor }));
        const names = page.items.map((a) => (a.displayName ? `${a.agentId} (${a.displayName})` : a.agentId));
        const text = page.items.length
          ? `${plural(page.items.length, "agent", "agents")}: ${names.join(", ")}${page.nextCursor ? "; more with the nextCursor" : ""}.`
          : "No agents yet; create_agent makes one.";
        return toolResult(text, page);
      }),
  );

  server.registerTool(
    "create_agent",
    {
      description:
        "Create an agent (a separate memory: lessons, cases, episodes). Safe to repeat: an existing agent is returned unchanged unless displayName is given.",
      inputSchema: CreateInput,
      outputSchema: CreateOutput,
      annotations: { idempotentHint: true },
    },
    ({ agentId, displayName }) =>
      guarded(c, async () => {
        const { agent, created } = unwrap(await upsertAgent(deps, caller, { agentId, displayName }));
        return toolResult(created ? `Created agent ${agentId}.` : `Agent ${agentId} already exists.`, { ...agent, created });
      }),
  );
}
