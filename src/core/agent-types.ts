import { z } from "zod";

const epochMs = z.number().int().describe("Unix epoch milliseconds");

/** An agent as every door shows it (REST, MCP). */
export const AgentSchema = z.object({
  agentId: z.string(),
  displayName: z.string().nullable(),
  createdAt: epochMs,
  updatedAt: epochMs,
  lastActiveAt: epochMs.nullable(),
});
