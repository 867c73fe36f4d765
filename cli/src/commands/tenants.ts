import type { Command } from "commander";
import { unwrap } from "../../../client/src/index.js";
import { client } from "../config.js";
import { output } from "../output.js";

export function registerTenants(program: Command): void {
  const tenants = program.command("tenants").description("Tenants (operator key)");
  tenants
    .command("create <name>")
    .description("Create a tenant; prints its admin API key once (a name another tenant has is refused)")
    .option("--allow-duplicate-name", "create it even when another tenant has this name")
    .action(async (name: string, opts: { allowDuplicateName?: boolean }, cmd: Command) => {
      const body = { name, ...(opts.allowDuplicateName ? { allowDuplicateName: true } : {}) };
      const t = await unwrap(client(cmd).api.POST("/v1/tenants", { body }));
      output(cmd, t, () => console.log(`Tenant ${t.tenantId} (${t.name})\nAdmin API key (shown once): ${t.apiKey}`));
    });
}
