import type { Schemas } from "../../../client/src/index.js";

/** What the server-rendered shell says this page is about (data attributes of <body>). */
export const body = document.body;
export const page = body.dataset.page ?? "";
export const agentId = body.dataset.agentId ?? "";
export const runId = body.dataset.runId ?? "";
export const itemId = body.dataset.itemId ?? "";
export const libraryId = body.dataset.libraryId ?? "";

export const enc = encodeURIComponent;
export const agentPage = (path = "", id = agentId) => `/dashboard/agents/${enc(id)}${path}`;
export const agentPath = (id = agentId) => ({ path: { agentId: id } });
export const lessonHref = (id: string) => agentPage(`/lessons/${enc(id)}`);
export const episodeHref = (id: string) => agentPage(`/episodes/${enc(id)}`);
export const libraryHref = (id: string) => `/dashboard/libraries/${enc(id)}`;
export const caseHref = (id: string) => agentPage(`/cases/${enc(id)}`);
/** A job's row on the jobs page, which lists the agent's recent jobs (there is no page per job). */
export const jobHref = (id: string) => agentPage(`/jobs#${jobAnchor(id)}`);
export const jobAnchor = (id: string) => `job-${id}`;
/** A retrieval's panel on the page of the episode it served. */
export const retrievalHref = (episodeId: string, retrievalId: string) => `${episodeHref(episodeId)}#${retrievalAnchor(retrievalId)}`;
export const retrievalAnchor = (id: string) => `retrieval-${id}`;
export const runHref = (id: string, step?: number) => agentPage(`/runs/${enc(id)}${step === undefined ? "" : `#step-${step}`}`);

let me: Schemas["CurrentApiKey"] | null = null;
export const setMe = (key: Schemas["CurrentApiKey"] | null) => void (me = key);

/** Write controls are built only for keys that may use them; a read key never sees one. */
export const canWrite = () => !!me && me.scope !== "read" && (!me.agentIds || !agentId || me.agentIds.includes(agentId));
/** Admin-only controls (the quarantine's release and delete) are built only for an admin key. */
export const canAdmin = () => canWrite() && me?.scope === "admin";
