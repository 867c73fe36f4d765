/** One event of a practice run's stream (`status`, `stage`, `rollout`, `group`, `step`, `budget`, `end`). */
export interface RunEvent {
    id: number;
    type: string;
    data: Record<string, unknown>;
}
/**
 * Reads Server-Sent Events over fetch (which Workers, Node and browsers all have; EventSource
 * cannot send an Authorization header). `open(lastEventId)` makes one connection; when the server
 * closes it (it does every few minutes), the next one resumes after the last event seen. The
 * stream ends after an `end` event, or when a connection closes without any new event (the run
 * was already over).
 */
export declare function runEvents(open: (lastEventId: number) => Promise<Response>): AsyncGenerator<RunEvent>;
