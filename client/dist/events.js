import { EventSourceParserStream } from "eventsource-parser/stream";
/**
 * Reads Server-Sent Events over fetch (which Workers, Node and browsers all have; EventSource
 * cannot send an Authorization header). `open(lastEventId)` makes one connection; when the server
 * closes it (it does every few minutes), the next one resumes after the last event seen. The
 * stream ends after an `end` event, or when a connection closes without any new event (the run
 * was already over).
 */
export async function* runEvents(open) {
    let lastId = 0;
    for (;;) {
        const res = await open(lastId);
        if (!res.body)
            return;
        const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
        let received = 0;
        try {
            for (;;) {
                const { done, value } = await reader.read();
                if (done)
                    break;
                received++;
                const id = Number(value.id ?? lastId + 1);
                lastId = id;
                const event = {
                    id,
                    type: value.event ?? "message",
                    data: value.data ? JSON.parse(value.data) : {},
                };
                yield event;
                if (event.type === "end")
                    return;
            }
        }
        finally {
            await reader.cancel().catch(() => undefined);
        }
        if (!received)
            return;
    }
}
