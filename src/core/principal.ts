/** Who is calling: the operator (PRAXIS_ADMIN_KEY) or a tenant's API key with its scope and agents. */
export type Scope = "admin" | "write" | "read";

export type KeyPrincipal = { kind: "key"; tenantId: string; keyId: string; scope: Scope; agentIds: string[] | null };
export type Principal = { kind: "operator" } | KeyPrincipal;
