/** Served as text by the Worker (a wrangler Text rule), never run on the server. */
declare const text: string;
export default text;
