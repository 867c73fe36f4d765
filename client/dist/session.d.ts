import type { Middleware } from "openapi-fetch";
/** The header a write answers its agent's new library version in, and the one a read asks for it by. */
export declare const LIBRARY_VERSION_HEADER = "x-praxis-library-version";
export declare const MIN_VERSION_HEADER = "x-praxis-min-version";
/**
 * Session consistency: the latest library version this client wrote for each agent, sent with its
 * next reads of that agent (as `X-Praxis-Min-Version`; a `minVersion` the caller gives wins), so
 * the client reads its own writes while its reads stay at the edge.
 */
export declare class LibraryVersions {
    private readonly latest;
    get(agentId: string): number | undefined;
    note(agentId: string, version: number): void;
    forget(agentId: string): void;
    /** Every agent's version, the one written longest ago first. */
    entries(): [string, number][];
}
export declare function readYourWritesMiddleware(versions: LibraryVersions): Middleware;
