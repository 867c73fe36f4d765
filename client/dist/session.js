/** The header a write answers its agent's new library version in, and the one a read asks for it by. */
export const LIBRARY_VERSION_HEADER = "x-praxis-library-version";
export const MIN_VERSION_HEADER = "x-praxis-min-version";
const AGENT_PATH = "/v1/agents/{agentId}";
/** The reads ranked at the edge, which may lag a write by the staleness bound unless asked for its version. */
const EDGE_READS = new Set(["POST /v1/agents/{agentId}/retrieve", "GET /v1/agents/{agentId}/prompt"]);
/**
 * Session consistency: the latest library version this client wrote for each agent, sent with its
 * next reads of that agent (as `X-Praxis-Min-Version`; a `minVersion` the caller gives wins), so
 * the client reads its own writes while its reads stay at the edge.
 */
export class LibraryVersions {
    latest = new Map();
    get(agentId) {
        return this.latest.get(agentId);
    }
    note(agentId, version) {
        if (version <= (this.latest.get(agentId) ?? -1))
            return;
        this.latest.delete(agentId);
        this.latest.set(agentId, version);
    }
    forget(agentId) {
        this.latest.delete(agentId);
    }
    /** Every agent's version, the one written longest ago first. */
    entries() {
        return [...this.latest];
    }
}
function agentOf(schemaPath, url) {
    if (schemaPath !== AGENT_PATH && !schemaPath.startsWith(`${AGENT_PATH}/`))
        return null;
    const segment = new URL(url).pathname.split("/")[3];
    return segment ? decodeURIComponent(segment) : null;
}
export function readYourWritesMiddleware(versions) {
    return {
        onRequest({ request, schemaPath }) {
            const agentId = agentOf(schemaPath, request.url);
            if (!agentId || request.headers.has(MIN_VERSION_HEADER) || !EDGE_READS.has(`${request.method} ${schemaPath}`))
                return undefined;
            const version = versions.get(agentId);
            if (version === undefined)
                return undefined;
            const headers = new Headers(request.headers);
            headers.set(MIN_VERSION_HEADER, String(version));
            return new Request(request, { headers });
        },
        async onResponse({ request, response, schemaPath }) {
            const agentId = agentOf(schemaPath, request.url);
            if (!agentId)
                return undefined;
            if (response.ok && request.method === "DELETE" && schemaPath === AGENT_PATH)
                versions.forget(agentId);
            const made = Number(response.headers.get(LIBRARY_VERSION_HEADER) ?? Number.NaN);
            if (response.ok && Number.isInteger(made))
                versions.note(agentId, made);
            // A version the library never reaches (the agent was deleted and made again elsewhere) is
            // dropped, so only this read fails, not every later one.
            const asked = request.headers.get(MIN_VERSION_HEADER);
            if (response.status === 409 && asked !== null && (await unreached(response)) === Number(asked))
                versions.forget(agentId);
            return undefined;
        },
    };
}
/** The `minVersion` a version-not-reached problem names (a caller's own `minVersion` is not ours to drop). */
async function unreached(response) {
    try {
        const body = (await response.clone().json());
        const ok = typeof body.type === "string" && body.type.endsWith("/version-not-reached") && typeof body.minVersion === "number";
        return ok ? body.minVersion : undefined;
    }
    catch {
        return undefined;
    }
}
